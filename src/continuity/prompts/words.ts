// The shape of the continuity checker's words in one language (zh.ts, en.ts).
export interface CheckWords {
  /** The judge's system prompt. */
  system: string;
  stateHeading: string;
  afterHeading: string;
  proseHeading: string;
  candidatesHeading: string;
  fileLabel: (file: string) => string;
  /** Between a label and its value. */
  colon: string;
  time: string;
  location: string;
  present: string;
  at: (place: string) => string;
  departed: string;
  items: string;
  noneWord: string;
  candidateLine: (n: number, type: string, subject: string, quote: string, reason: string) => string;
  answerNow: string;
  reasons: {
    departed: (name: string) => string;
    twoPlaces: (name: string, at: string, location: string) => string;
    twoHolders: (item: string, holder: string, other: string) => string;
    twoHoldersState: (item: string, holders: string) => string;
    dead: (name: string) => string;
    timeBackwards: (word: string, time: string) => string;
    misspelt: (spelling: string, name: string) => string;
    /** Appended to a reason when a marker lowered the confidence. */
    markerNear: string;
  };
  problems: {
    judgeFailed: (detail: string) => string;
    judgeGarbage: string;
    judgeAborted: string;
    proseTruncated: string;
  };
}
