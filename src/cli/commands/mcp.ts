// `hermes mcp …`: manage MCP servers (add/remove/list/test) and run Hermes as one (serve).
import { Command } from 'commander';
import { action } from '../errors.ts';

const collect = (v: string, prev: string[] = []) => [...prev, v];

export default function register(program: Command): void {
  const mcp = program.command('mcp').description('MCP: connect tool servers to Hermes, or serve Hermes to other agents');
  mcp
    .command('add <name> [command...]')
    .description('add an MCP server to config.yaml (checks that it connects first)')
    .option('--url <endpoint>', 'HTTP endpoint (Streamable HTTP; add --transport sse for legacy SSE)')
    .option('--command <program>', 'program that speaks MCP on stdio (or give it after `--`)')
    .option('--args <args...>', 'arguments for --command')
    .option('--env <NAME=value>', 'environment variable for a stdio server (repeatable; secrets go to .env)', collect)
    .option('--header <"Name: value">', 'HTTP header (repeatable; secrets go to .env)', collect)
    .option('--transport <kind>', 'http (default for --url) or sse')
    .option('--auth <kind>', 'oauth: sign in with OAuth 2.1 in the browser (HTTP servers)')
    .option('--timeout <seconds>', 'per tool call (default 120)')
    .option('--connect-timeout <seconds>', 'for connecting (default 60)')
    .option('--include <tools>', 'only these tools (comma-separated; * globs)')
    .option('--exclude <tools>', 'all tools but these (comma-separated; * globs)')
    .option('--no-test', 'save without connecting first')
    .option('--force', 'replace a server of the same name')
    .addHelpText('after', '\nExamples:\n  hermes mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ~/projects\n  hermes mcp add github --command github-mcp-server --args stdio --env GITHUB_PERSONAL_ACCESS_TOKEN=ghp_…\n  hermes mcp add docs --url https://mcp.example.com/mcp --header "Authorization: Bearer …"')
    .action(
      action(async (name: string, command: string[], opts) => {
        const m = await import('../mcp-cmd.ts');
        await m.add(name, command ?? [], opts);
      }),
    );
  mcp
    .command('remove <name>')
    .alias('rm')
    .description('remove an MCP server from config.yaml')
    .action(
      action(async (name: string) => {
        const m = await import('../mcp-cmd.ts');
        m.remove(name);
      }),
    );
  mcp
    .command('list')
    .alias('ls')
    .description('list the configured MCP servers')
    .action(
      action(async () => {
        const m = await import('../mcp-cmd.ts');
        m.list();
      }),
    );
  mcp
    .command('test <name>')
    .description('connect to one server and list its tools')
    .action(
      action(async (name: string) => {
        const m = await import('../mcp-cmd.ts');
        await m.test(name);
      }),
    );
  mcp
    .command('login <name>')
    .alias('reauth')
    .description('sign in to an OAuth MCP server (auth: oauth) in the browser; replaces stored tokens')
    .action(
      action(async (name: string) => {
        const m = await import('../mcp-cmd.ts');
        await m.login(name);
      }),
    );
  mcp
    .command('logout <name>')
    .description("forget an OAuth MCP server's stored tokens and client registration")
    .action(
      action(async (name: string) => {
        const m = await import('../mcp-cmd.ts');
        m.logout(name);
      }),
    );
  mcp
    .command('serve')
    .description('run Hermes as an MCP server on stdio (conversations; --tools adds web, vision and skills tools)')
    .option('--tools', "also expose Hermes's web, vision and skills tools (never terminal or file tools)")
    .option('--tools-only', "expose only those tools, no conversations (the hermes-tools server of the Codex runtime)")
    .option('-v, --verbose', 'log each tool call to stderr')
    .action(
      action(async (opts: { tools?: boolean; toolsOnly?: boolean; verbose?: boolean }) => {
        const m = await import('../mcp-serve-cmd.ts');
        await m.runServe(opts);
      }),
    );
}
