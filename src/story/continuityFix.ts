// What the quick fixes of a continuity finding do, decided in the core: the instruction of
// **Ask the Agent to Fix** (in the project's language: it goes to the model as the novelist's
// instruction), and the scene-state edit **Update Scene State** prefills (what the finding says
// the state should be), as the YAML the Scene State view's editor takes.
import { stringify } from 'yaml';
import type { Finding } from '../continuity/types';
import { itemName } from '../state/roster';
import type { Lang, SceneState } from '../state/types';
import { userEdit } from '../state/userEdit';

/** The instruction of Ask the Agent to Fix: the finding's quote, reason and file, and to change only that passage. */
export function fixInstruction(finding: Finding, lang: Lang): string {
  const quote = finding.quote.trim();
  const reason = finding.reason.trim();
  if (lang === 'zh') {
    return `请修改 ${finding.file} 里的一处连续性问题：「${quote}」——${reason}。只改这一处及必要的上下文，其余文字保持不变。`;
  }
  return `Please fix a continuity problem in ${finding.file}: "${quote}" — ${reason}. Change only this passage (and what it needs around it); leave the rest of the text as it is.`;
}

/**
 * The scene-state patch a finding implies (as the Scene State view's edits take it), or undefined
 * when the state cannot be told what to be (the prose is what is wrong: a misspelt name, time
 * running backwards; or the finding does not name the new value):
 * - a departed character who acts, or one recorded elsewhere: they are here (`at` = the scene's location);
 * - an item (the subject) held by someone else than `expected`: the one other roster character
 *   its quote names becomes the holder written in the item's string.
 */
export function stateFixFor(finding: Finding, state: SceneState): Record<string, unknown> | undefined {
  switch (finding.type) {
    case 'departed-acts':
    case 'two-places': {
      const name = finding.subject.trim();
      if (name === '' || state.location.trim() === '') return undefined;
      if (state.characters[name]?.at === state.location) return undefined;
      return { characters: { [name]: { at: state.location } } };
    }
    case 'two-holders': {
      // The item (subject) held by `expected` in the state; the prose gives it to the one other
      // character of the roster its quote names.
      const recorded = finding.expected?.trim();
      if (!recorded) return undefined;
      const named = Object.keys(state.roster.characters).filter((n) => n !== recorded && !recorded.includes(n) && finding.quote.includes(n));
      if (named.length !== 1) return undefined;
      const at = state.items.findIndex((i) => itemName(i) === finding.subject.trim() && i.slice(itemName(i).length).includes(recorded));
      if (at < 0) return undefined;
      const item = state.items[at] as string;
      const name = itemName(item);
      const items = [...state.items];
      items[at] = name + item.slice(name.length).split(recorded).join(named[0] as string);
      return { items };
    }
    default:
      return undefined;
  }
}

/**
 * The state YAML the Scene State editor opens with for Update Scene State: the state with the
 * finding's fix applied when there is one (checked as the novelist's edit is), else the state as
 * it is. `prefilled` says which.
 */
export function stateEditFor(finding: Finding, state: SceneState, lang: Lang): { yaml: string; prefilled: boolean } {
  const patch = stateFixFor(finding, state);
  if (patch) {
    const edited = userEdit(state, patch, { lang });
    if (edited.ok) return { yaml: stringify(edited.state, { lineWidth: 0 }), prefilled: true };
  }
  return { yaml: stringify(state, { lineWidth: 0 }), prefilled: false };
}
