/** The flag values of one invocation, as `node:util` `parseArgs` gives them. */
export type Values = Record<string, string | boolean | undefined>;

/**
 * A flag of a command. With `value` (the placeholder shown in usage, such as `ID`) it takes a
 * string; without, it is a switch. Every flag says what it does: help prints it.
 */
export interface Flag {
  readonly value?: string;
  readonly description: string;
  /** The command refuses to run without it (a usage error, before any database is opened). */
  readonly required?: boolean;
}

/** How a command's result reads for a person (without `--json`). */
export type TextOutput =
  /** An aligned table of `result.data` with a header row, one column per named field. */
  | { readonly table: readonly string[] }
  /** `field: value` lines of the result (nested objects as `a.b`). */
  | 'fields'
  /** Free text, for the few outputs a person reads as a message. */
  | ((result: Record<string, unknown>) => string);

/** One admin command: its words, its flags (each described), what it does and how it prints. */
export interface AdminCommand<U> {
  /** The command's words, such as `agent set-channel`. */
  readonly name: string;
  /** One line: what the command does. */
  readonly summary: string;
  readonly flags: Readonly<Record<string, Flag>>;
  run(values: Values, useCases: U): Promise<Record<string, unknown>>;
  readonly output: TextOutput;
  /** Said on stderr after a successful run without `--json` (e.g. that a secret is shown once). */
  readonly note?: string;
}

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An operation the command could not do, with a stable reason (exit code 1). */
export class CommandRefused extends Error {
  override readonly name = 'CommandRefused';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The value of a flag that must be given, or a usage error. */
export const required = (values: Values, flag: string): string => {
  const v = values[flag];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${flag} is required`);
  return v;
};

/** The value of a string flag, if given. */
export const optional = (values: Values, flag: string): string | undefined => {
  const v = values[flag];
  return typeof v === 'string' ? v : undefined;
};

/** `value`, given for `flag`, as one of `choices`; any other value is a usage error that lists them. */
export const oneOf = <C extends string>(flag: string, value: string, choices: readonly C[]): C => {
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${choices.join(', ')}`);
  return value as C;
};

/** The value of a flag that names one of `choices`, if given; any other value is a usage error. */
export const optionalChoice = <C extends string>(values: Values, flag: string, choices: readonly C[]): C | undefined => {
  const v = optional(values, flag);
  return v === undefined ? undefined : oneOf(flag, v, choices);
};

/** The value of a whole-number flag, if given; anything else is a usage error. */
export const optionalInt = (values: Values, flag: string): number | undefined => {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d{1,15}$/.test(v)) throw new UsageError(`--${flag} must be a whole number`);
  return Number.parseInt(v, 10);
};

/** The fields whose flag was given: a flag left out is absent from the command, not `undefined`. */
export const given = <T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };

/** The command line a person types before a command's words. */
export const PROGRAM = 'npm run --silent admin --';

/** The usage line of a command, built from its flags so that it never disagrees with them. */
export function usageOf(command: AdminCommand<unknown>): string {
  const parts = Object.entries(command.flags).map(([name, flag]) => {
    const text = flag.value === undefined ? `--${name}` : `--${name} ${flag.value}`;
    return flag.required === true ? text : `[${text}]`;
  });
  return [command.name, ...parts].join(' ');
}
