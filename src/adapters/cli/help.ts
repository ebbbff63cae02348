import { PROGRAM, usageOf, type AdminCommand, type Flag } from './command.js';

/** The flags every command takes besides its own. */
export const COMMON_FLAGS: Readonly<Record<string, Flag & { short?: string }>> = {
  json: { description: 'print exactly one JSON object on stdout (an error: one JSON object on stderr)' },
  help: { short: 'h', description: 'print this help and exit, without opening the database' },
};

type Commands = readonly AdminCommand<unknown>[];

/** The commands whose words start with `words` (every command for none). */
export const commandsUnder = (commands: Commands, words: readonly string[]): AdminCommand<unknown>[] =>
  commands.filter((c) => {
    const own = c.name.split(' ');
    return words.length <= own.length && words.every((w, i) => own[i] === w);
  });

/** The command named exactly by the leading words of `args`, with how many words it took. */
export function findCommand<C extends AdminCommand<unknown>>(commands: readonly C[], args: readonly string[]): C | undefined {
  return commands.find((c) => c.name.split(' ').every((w, i) => args[i] === w));
}

const flagLabel = (name: string, flag: Flag & { short?: string }): string =>
  `${flag.short === undefined ? '' : `-${flag.short}, `}--${name}${flag.value === undefined ? '' : ` ${flag.value}`}`;

const columns = (rows: readonly (readonly [string, string])[]): string[] => {
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`);
};

/** Help for one command: usage, what it does, and every flag with what it does. */
export function commandHelp(command: AdminCommand<unknown>): { text: string; json: Record<string, unknown> } {
  const own = Object.entries(command.flags).map(
    ([name, flag]) => [flagLabel(name, flag), `${flag.description}${flag.required === true ? ' (required)' : ''}`] as const,
  );
  const common = Object.entries(COMMON_FLAGS).map(([name, flag]) => [flagLabel(name, flag), flag.description] as const);
  const text = [
    `usage: ${PROGRAM} ${usageOf(command)} [--json]`,
    '',
    command.summary,
    '',
    'flags:',
    ...columns([...own, ...common]),
    '',
  ].join('\n');
  const json = {
    command: command.name,
    summary: command.summary,
    usage: `${usageOf(command)} [--json]`,
    flags: [...Object.entries(command.flags), ...Object.entries(COMMON_FLAGS)].map(([name, flag]) => ({
      flag: `--${name}`,
      value: flag.value ?? null,
      required: flag.required === true,
      description: flag.description,
    })),
  };
  return { text, json };
}

/** Help for a group of commands (`agent`), or for every command when `words` is empty. */
export function groupHelp(commands: Commands, words: readonly string[]): { text: string; json: Record<string, unknown> } {
  const listed = commandsUnder(commands, words);
  const group = words.length === 0 ? '' : `${words.join(' ')} `;
  const text = [
    `usage: ${PROGRAM} ${group}<command> [flags] [--json]`,
    '',
    'commands:',
    ...columns(listed.map((c) => [c.name, c.summary])),
    '',
    'flags of every command:',
    ...columns(Object.entries(COMMON_FLAGS).map(([name, flag]) => [flagLabel(name, flag), flag.description])),
    '',
    `A command's own flags: ${PROGRAM} ${group}<command> --help`,
    '',
  ].join('\n');
  const json = {
    usage: `${group}<command> [flags] [--json]`,
    commands: listed.map((c) => ({ command: c.name, summary: c.summary, usage: usageOf(c) })),
  };
  return { text, json };
}
