// fnmatch-style globs (`*`, `?`, `[…]`), as approvals.deny and `command_allowlist` use them.

/** A glob → RegExp, case-insensitive, whole string. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = glob.indexOf(']', i + 2);
      if (j < 0) re += '\\[';
      else {
        let cls = glob.slice(i + 1, j);
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        re += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = j;
      }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'is');
}

export const hasGlob = (s: string): boolean => /[*?[]/.test(s);
