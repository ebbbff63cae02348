import { expect } from 'chai';
import { adminProcessWith, type AdminRun } from '../support/cli.js';
import { ADMIN_COMMANDS } from '../../src/bootstrap/admin-commands.js';

/** A database nobody listens on: help and usage mistakes must be answered without one. */
const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing', PERSISTENCE: undefined };
const admin = (...args: string[]): Promise<AdminRun> => adminProcessWith(NO_DATABASE, ...args);

/** Runs `jobs` with at most `width` at a time (each spawns a process on a shared machine). */
async function inBatches<T>(jobs: readonly (() => Promise<T>)[], width = 4): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < jobs.length; i += width) out.push(...(await Promise.all(jobs.slice(i, i + width).map((j) => j()))));
  return out;
}

// The first words of commands of two or more words; a one-word command (`backup`) is no group.
const groups = [...new Set(ADMIN_COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];

describe('admin command line help (separate processes, no database)', function () {
  this.timeout(300_000);

  it('when any command is asked for --help or -h, then its usage, summary and every flag with its description go to stdout, exit 0', async () => {
    const calls = ADMIN_COMMANDS.flatMap((command) =>
      ['--help', '-h'].map((flag) => async () => ({ command, flag, out: await admin(...command.name.split(' '), flag) })),
    );
    for (const { command, flag, out } of await inBatches(calls)) {
      const what = `${command.name} ${flag}`;
      expect(out.code, `${what}: ${out.stderr}`).to.equal(0);
      expect(out.stderr, what).to.equal('');
      expect(out.stdout, what).to.match(new RegExp(`^usage: npm run --silent admin -- ${command.name}( |\\n)`));
      expect(out.stdout, what).to.include(command.summary);
      for (const [name, f] of Object.entries(command.flags)) {
        expect(f.description.trim(), `${what}: --${name} has no description`).not.to.equal('');
        const line = out.stdout
          .split('\n')
          .find((l) => l.trimStart().startsWith(`--${name}${f.value === undefined ? '' : ` ${f.value}`} `));
        expect(line, `${what}: no line for --${name}`).to.be.a('string');
        expect(line, what).to.include(f.description);
      }
      expect(out.stdout, what).to.include('--json').and.include('-h, --help');
    }
  });

  it('when a command group, or nothing, is asked for help, then every command under it is listed on stdout, exit 0', async () => {
    const calls = [...groups.flatMap((g) => [[g, '--help'], [g, '-h'], ['help', g], [g]]), ['--help'], ['-h'], ['help'], []].map(
      (args) => async () => ({ args, out: await admin(...args) }),
    );
    for (const { args, out } of await inBatches(calls)) {
      const what = args.join(' ') || '(nothing)';
      expect(out.code, `${what}: ${out.stderr}`).to.equal(0);
      expect(out.stderr, what).to.equal('');
      const group = args.find((a) => groups.includes(a));
      const listed = ADMIN_COMMANDS.filter((c) => group === undefined || c.name.split(' ')[0] === group);
      for (const c of listed) expect(out.stdout, what).to.match(new RegExp(`^  ${c.name} +${escape(c.summary)}$`, 'm'));
      for (const c of ADMIN_COMMANDS.filter((x) => !listed.includes(x))) {
        expect(out.stdout, what).not.to.match(new RegExp(`^  ${c.name} `, 'm'));
      }
    }
  });

  it('when the command table is read, then every list prints a table and every create, show and state change prints field lines', () => {
    for (const c of ADMIN_COMMANDS) {
      const verb = c.name.split(' ').at(-1)!;
      if (verb === 'list') expect(c.output, c.name).to.have.property('table').that.is.not.empty;
      // A statement prints a document (its lines, or CSV), as the demo and a sandbox print their credentials.
      else if (!['demo seed', 'sandbox create', 'agent statement', 'operator statement'].includes(c.name))
        expect(c.output, c.name).to.equal('fields');
    }
  });

  it('when help is asked with --json, then stdout is exactly one JSON object naming every flag', async () => {
    const [one, all] = await Promise.all([admin('agent', 'set-channel', '--help', '--json'), admin('--help', '--json')]);
    expect(one.code).to.equal(0);
    expect(one.stdout.trimEnd().split('\n')).to.have.length(1);
    const help = JSON.parse(one.stdout) as { command: string; flags: { flag: string; required: boolean }[] };
    expect(help.command).to.equal('agent set-channel');
    expect(help.flags.map((f) => f.flag)).to.deep.equal(['--agent', '--channel', '--json', '--help']);
    expect(help.flags.filter((f) => f.required).map((f) => f.flag)).to.deep.equal(['--agent', '--channel']);
    const listed = JSON.parse(all.stdout) as { commands: { command: string }[] };
    expect(listed.commands.map((c) => c.command)).to.deep.equal(ADMIN_COMMANDS.map((c) => c.name));
  });

  it('when the command is unknown, then the error and the help go to stderr with exit 2 and nothing to stdout', async () => {
    const [top, sub, json] = await Promise.all([admin('frobnicate'), admin('agent', 'frobnicate'), admin('agent', 'frobnicate', '--json')]);
    expect(top.code).to.equal(2);
    expect(top.stdout).to.equal('');
    expect(top.stderr)
      .to.match(/^error: unknown command: frobnicate\n/)
      .and.include('  tenant create');
    expect(sub.code).to.equal(2);
    expect(sub.stdout).to.equal('');
    expect(sub.stderr)
      .to.match(/^error: unknown command: agent frobnicate\n/)
      .and.include('  agent set-channel');
    expect(sub.stderr).not.to.include('tenant create');
    expect(json.code).to.equal(2);
    expect(json.stdout).to.equal('');
    expect(JSON.parse(json.stderr)).to.deep.equal({ error: { reason: 'unknown-command', message: 'unknown command: agent frobnicate' } });
  });

  it('when a required flag is missing or a flag unknown, then usage goes to stderr with exit 2, before any database is needed', async () => {
    const [missing, unknown] = await Promise.all([
      admin('agent', 'set-channel', '--agent', 'agt_x', '--json'),
      admin('agent', 'show', '--agent', 'agt_x', '--force'),
    ]);
    expect(missing.code).to.equal(2);
    expect(missing.stdout).to.equal('');
    expect(JSON.parse(missing.stderr).error).to.include({ reason: 'usage' });
    expect(JSON.parse(missing.stderr).error.message).to.include('--channel is required');
    expect(unknown.code).to.equal(2);
    expect(unknown.stdout).to.equal('');
    expect(unknown.stderr).to.include('usage: agent show --agent ID').and.include('agent show --help');
  });
});

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
