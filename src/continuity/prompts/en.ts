// The continuity checker's English words: the judge's prompt, the rules' one-line reasons, and
// the problems a check reports. Fixed text, so the judge's prompt prefix is stable across turns.
import type { CheckWords } from './words';

export const EN: CheckWords = {
  system: `You check a novel's new prose against the recorded scene state. A rule-based checker has flagged candidate continuity errors. For each candidate decide whether it is a real error in the new prose.

Error types:
- departed-acts: a character who left the scene earlier (still in the roster, no longer in the scene) speaks or acts in it now, and the new prose does not write them coming back.
- two-places: a character recorded as being somewhere else speaks or acts in this scene, with no arrival written.
- two-holders: an item recorded as held by one character is held, used or taken out by another, and no hand-over is written (handed, gave, passed, took it from…); or the state lists the same item with two holders.
- dead-acts: a character recorded as dead speaks or acts in the present scene.
- time-backwards: the prose puts the scene at an earlier time of day than the recorded time, with no new day (the next morning, the following day) and no flashback.
- misspelt-name: a name that is one letter (Chinese: one character) off a roster name and means that character.

These are NOT errors (answer "error": false):
- flashbacks, memories, dreams, imagination, wishes ("she remembered Elara laughing", "years ago", "in the dream");
- phone calls, video calls, letters, messages, recordings, photographs ("Elara's voice on the phone", "the letter said");
- an explicit hand-over written in the prose before the item changes hands;
- an arrival written in the same prose before the character acts (came in, returned, arrived);
- a character only named, thought of or talked about, not acting ("she thought of Elara");
- dialogue that mentions another time or person; a different character who really has a similar name.

Rules:
- Judge only from the state and the prose given. When unsure, answer false.
- "quote" must be copied exactly, character for character, from the new prose: the shortest sentence or clause that shows the error (or, for false, the candidate's quote).
- "reason": one short sentence in English.
- Output only one JSON object, no explanation, no code fence:
{"verdicts":[{"candidate":0,"error":true,"quote":"exact substring","reason":"…"}]}
One verdict for every candidate number.`,
  stateHeading: '[Scene state before this turn]',
  afterHeading: '[Scene state after this turn]',
  proseHeading: '[New prose]',
  candidatesHeading: '[Candidates]',
  fileLabel: (file) => `--- file: ${file} ---`,
  colon: ': ',
  time: 'Time',
  location: 'Location',
  present: 'present',
  at: (place) => `at: ${place}`,
  departed: 'left the scene',
  items: 'Items',
  noneWord: 'none',
  candidateLine: (n, type, subject, quote, reason) => `${n}. [${type}] ${subject}: “${quote}” (${reason})`,
  answerNow: 'Give one verdict per candidate, as JSON only.',
  reasons: {
    departed: (name) => `${name} left the scene earlier, yet speaks or acts here, and no return is written.`,
    twoPlaces: (name, at, location) => `${name} is recorded at ${at}, not at ${location}, yet speaks or acts here.`,
    twoHolders: (item, holder, other) => `${item} is held by ${holder}, yet ${other} holds or uses it with no hand-over written.`,
    twoHoldersState: (item, holders) => `The scene state lists ${item} with two holders: ${holders}.`,
    dead: (name) => `${name} is recorded as dead, yet speaks or acts here.`,
    timeBackwards: (word, time) => `“${word}” is earlier than the recorded time (${time}), with no new day or flashback.`,
    misspelt: (spelling, name) => `“${spelling}” looks like a misspelling of ${name}.`,
    markerNear: 'a memory, call, letter or dream is mentioned nearby',
  },
  problems: {
    judgeFailed: (detail) => `The continuity judge could not be asked (${detail}); showing only the rules' sure findings.`,
    judgeGarbage: 'The continuity judge answered without usable verdicts; showing only the rules\' sure findings.',
    judgeAborted: 'The continuity check was cancelled.',
    proseTruncated: 'The new prose was too long for the judge; only its beginning was checked by the model.',
  },
};
