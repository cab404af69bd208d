import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';

/**
 * The README's "Map of the code" is how a newcomer finds things, so it must
 * match the tree: every path it names exists, and every top-level file and
 * every directory of `src/`, `src/common`, `src/platform` and `src/modules`
 * is on it.
 */
const root = join(__dirname, '..');

function mappedPaths(): Set<string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Map of the code'));
  const block = section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
  const paths = new Set<string>();
  const stack: string[] = [];
  for (const line of block.split('\n')) {
    const match = /^( *)([\w.-]+\/|[\w.-]+\.ts)(?:\s|$)/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 2;
    stack.length = depth;
    const path = [...stack, match[2].replace(/\/$/, '')].join('/');
    paths.add(path);
    if (match[2].endsWith('/')) stack.push(match[2].replace(/\/$/, ''));
  }
  return paths;
}

function childrenOf(dir: string, kind: 'dirs' | 'files'): string[] {
  return readdirSync(join(root, dir))
    .filter((name) => statSync(join(root, dir, name)).isDirectory() === (kind === 'dirs'))
    .map((name) => `${dir}/${name}`);
}

describe('README map of the code', () => {
  const mapped = mappedPaths();

  it('names only paths that exist', () => {
    expect(mapped.size).toBeGreaterThan(50);
    expect([...mapped].filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('lists every directory of src, src/common, src/platform and src/modules, and the top-level files', () => {
    const expected = [
      ...childrenOf('src', 'dirs'),
      ...childrenOf('src', 'files').filter((file) => !file.endsWith('.spec.ts')),
      ...['src/common', 'src/platform', 'src/modules'].flatMap((dir) => childrenOf(dir, 'dirs')),
    ];
    expect(expected.filter((path) => !mapped.has(path))).toEqual([]);
  });
});
