// The built-in tools. A tool is one file; adding one here makes it available to toolsets.
import { ToolRegistry } from './registry.ts';
import readFile from './read-file.ts';
import terminal from './terminal.ts';
import todo from './todo.ts';

export function builtinRegistry(): ToolRegistry {
  const r = new ToolRegistry();
  for (const def of [readFile, todo, terminal]) r.register(def);
  return r;
}
