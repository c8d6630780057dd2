/**
 * README.md and docs/ stay in step with the repository: every relative link points to a file that
 * exists, and an anchor in it to a heading (or an explicit `<a id>`) of that file, so moving text
 * between pages strands no link; every npm script they name is one of package.json's, and README
 * names them all. (What they quote of the template: test/infra/docs-figures.test.ts.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Markdown text without fenced code blocks, where `](…)` is code, not a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
  const text = prose(readFileSync(file, 'utf8'));
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => slug(heading!));
  const ids = [...text.matchAll(/<a id="([^"]+)"/g)].map(([, id]) => id!);
  return new Set([...headings, ...ids]);
}

/** `[text](target)` links that are neither absolute URLs nor mail addresses. */
function relativeLinks(page: string): string[] {
  return [...prose(readFileSync(join(root, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('links in README.md and docs/', () => {
  it.each(pages)('%s: every relative link resolves, anchors included', (page) => {
    const broken: string[] = [];
    for (const link of relativeLinks(page)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(root, page) : join(root, dirname(page), path);
      if (!existsSync(target)) broken.push(`${link}: no file ${relative(root, target)}`);
      else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${link}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('npm scripts in README.md and docs/', () => {
  const scripts = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  /** `npm start`, `npm test`, `npm run [-s] name` as a page writes them. */
  const named = (page: string) =>
    [...readFileSync(join(root, page), 'utf8').matchAll(/\bnpm (?:run (?:-s )?([\w:-]+)|(start|test)\b)/g)].map(([, run, lifecycle]) => (run ?? lifecycle)!);

  it.each(pages)('%s names only scripts package.json has', (page) => {
    expect(named(page).filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it('README names every script package.json has', () => {
    expect(scripts.filter((name) => !named('README.md').includes(name))).toEqual([]);
  });
});
