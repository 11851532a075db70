// axe-core in the browser tests: injected without weakening the page's CSP,
// run with the WCAG 2.x A/AA rules, and its serious and critical findings
// returned as short lines (rule, impact, element, what is wrong).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { isFirefox } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets run: WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** The impacts a test fails on. */
export const FAILING_IMPACTS = ['serious', 'critical'];

/**
 * Runs axe on the whole page in the given colour scheme ('light' or 'dark',
 * emulated as the system setting) and returns the serious and critical
 * violations, one line per element: `rule (impact) target: summary`.
 *
 * axe is evaluated through the DevTools protocol (`page.evaluate` of its
 * source), not added as a <script>: the page's CSP rightly blocks inline
 * scripts, and this way the page's own CSP assertions stay meaningful.
 */
export async function seriousViolations(page, { colorScheme = 'light', context = 'document' } = {}) {
  if (isFirefox) {
    // Firefox under WebDriver BiDi takes the scheme from the page's context
    // (openPage's `{ colorScheme }`), not from page.emulateMedia.
    const dark = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
    if (dark !== (colorScheme === 'dark')) {
      throw new Error(`axe: the page is not in the ${colorScheme} scheme; open it with openPage(browser, url, { colorScheme })`);
    }
  } else {
    await page.emulateMedia({ colorScheme });
  }
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(AXE_SOURCE);
  }
  const violations = await page.evaluate(async ({ tags, context }) => {
    const result = await window.axe.run(context === 'document' ? document : context, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), impact: n.impact, summary: n.failureSummary })),
    }));
  }, { tags: WCAG_TAGS, context });
  return violations
    .flatMap((v) => v.nodes.map((n) => ({ ...n, id: v.id, impact: n.impact ?? v.impact })))
    .filter((n) => FAILING_IMPACTS.includes(n.impact))
    .map((n) => `${n.id} (${n.impact}) ${n.target}: ${(n.summary ?? '').replace(/\s+/g, ' ').slice(0, 300)}`);
}
