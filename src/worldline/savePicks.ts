// The items of a save picker (Load Save, Delete Save, Compare Saves, Export Worldline): each save
// by its name ("you are here" marked), its worldline with the in-story time and place at the save,
// and when it was written with the first words of its prose, so two saves of one name can be told
// apart. Everything here is the novelist's or the model's own text, shown as it is.
import { firstWords } from '../common/firstWords';
import { pickText } from '../common/pickText';
import { ofCount, type Text } from '../common/text';
import type { PickItem } from '../protocol/prompter';
import type { SaveNode, WorldlineView } from './view';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** Every visible save, line by line in write order, but `exclude` (a save id). */
export function savePickItems(view: WorldlineView | undefined, exclude?: string): PickItem<SaveNode>[] {
  return (view?.worldlines ?? []).flatMap((line) => line.saves
    .filter((s) => s.saveId !== exclude)
    .map((s) => {
      const scene = [s.facts?.time, s.facts?.place].map((t) => firstWords(t ?? '', { width: 32 })).filter(Boolean);
      const words = s.facts?.firstWords;
      return {
        label: literal(`${s.isCurrent ? '$(location) ' : ''}${pickText(s.name)}`),
        description: literal(pickText([line.name, ...scene].join(' · '))),
        detail: literal(pickText([new Date(s.ts).toLocaleString(), ...(words ? [`“${words}”`] : [])].join(' · '))),
        value: s,
      };
    }));
}

/** "1 save", "3 saves". */
export function savesCount(n: number): Text {
  return ofCount(n, l10n.t('{0} save', n), l10n.t('{0} saves', n));
}
