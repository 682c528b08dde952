// What the shell shows of worldline.yaml besides the config itself: its problems as diagnostics
// (a line each), log lines and a one-line summary, and the language the novel is shown in.
import { formatProblem, resolveLanguage, type ConfigProblem, type LanguageSetting, type ProjectLanguage } from './config';

/** One problem on one 0-based line (the whole line is marked); a problem without a line sits on the first. */
export interface ConfigDiagnostic {
  line: number;
  message: string;
}

export interface ConfigReport {
  diagnostics: ConfigDiagnostic[];
  /** One line per problem, "worldline.yaml:<line>: …", for the log. */
  logLines: string[];
  /** The first problem as a log line, for the warning; undefined when there is none. */
  first: string | undefined;
}

export function configReport(problems: readonly ConfigProblem[]): ConfigReport {
  const logLines = problems.map(formatProblem);
  return {
    diagnostics: problems.map((p) => ({ line: Math.max(0, (p.line ?? 1) - 1), message: p.message })),
    logLines,
    first: logLines[0],
  };
}

/**
 * The language the novel is shown in: the `worldline.language` setting when it says zh or en,
 * else (auto, unset, anything else) worldline.yaml's `language`, and when that is auto too, VS
 * Code's display language.
 */
export function novelLanguage(override: string | undefined, project: LanguageSetting, displayLanguage: string): ProjectLanguage {
  if (override === 'zh' || override === 'en') return override;
  return resolveLanguage(project, displayLanguage);
}
