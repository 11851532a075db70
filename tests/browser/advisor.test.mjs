// Browser test of the Advisor, the tool the page opens on: on every demo (one
// page for all, each demo opened by editing the hash, so the suite stays
// cheap) the Advisor is the view shown, its findings are ranked with a gain
// range, cost, confidence, evidence and fix (or it says there are none), its
// evidence links are real links whose hash is the one the page then shows,
// one of them opens its tool (a trace link: the trace viewer at the linked
// time range); axe finds nothing serious in light and in dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, openPage, assertOwnOrigin, ARTIFACTS } from './harness.mjs';
import { seriousViolations } from './axe.mjs';

/** The demos (crates/app/src/demos.rs). */
const DEMOS = ['cpu', 'tf-gpu', 'jax', 'pytorch', 'input-bound'];

let env;

before(async () => {
  env = await launch();
});

after(async () => {
  await env?.close();
});

/** The hash's keys and values (`t`, `event`, `tool`…), without the trace layout's key. */
function hashParams(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  params.delete('tracks');
  return Object.fromEntries(params);
}

/** Opens demo `id` by the hash, and waits for the Advisor's answer on it. */
async function openDemo(page, id) {
  await page.evaluate((id) => { location.hash = `#demo=${id}`; }, id);
  await page.locator(`#demo-caption[data-demo="${id}"]`).waitFor({ timeout: 60_000 });
  await page.locator('#tool-advisor #advisor-basis').waitFor({ timeout: 120_000 });
}

/** What the Advisor shows: each finding's parts, the other lists' items. */
function advisorShown(page) {
  return page.evaluate(() => {
    const text = (el) => el?.textContent.trim() ?? '';
    const findings = [...document.querySelectorAll('#advisor-findings > li.finding')].map((li) => ({
      id: li.dataset.finding,
      rank: text(li.querySelector('.finding-rank')),
      title: text(li.querySelector('h3')),
      gain: text(li.querySelector('.finding-gain')),
      cost: text(li.querySelector('.finding-cost')),
      share: text(li.querySelector('.finding-share')),
      confidence: li.querySelector('.finding-confidence')?.dataset.confidence,
      summary: text(li.querySelector('.finding-summary')),
      // Text from the profile stays text: no element inside.
      markup: li.querySelectorAll('.finding-summary *, .finding-fix code *, table.evidence td.num *').length,
      fix: li.querySelector('pre.finding-fix > code')?.textContent ?? '',
      evidence: [...li.querySelectorAll('table.evidence tbody tr')].map((tr) => ({
        label: text(tr.querySelector('th')),
        value: text(tr.querySelector('td')),
        href: tr.querySelector('a.evidence-open')?.getAttribute('href') ?? null,
        tool: tr.querySelector('a.evidence-open')?.dataset.tool ?? null,
      })),
    }));
    return {
      findings,
      none: document.querySelector('#advisor-none') != null,
      unmeasured: [...document.querySelectorAll('#advisor-unmeasured > li')].map(text),
      clear: [...document.querySelectorAll('#advisor-clear > li')].map(text),
      tool: document.querySelector('#tool').value,
      firstOption: document.querySelector('#tool option')?.value,
    };
  });
}

/** Checks what the Advisor shows on demo `id`; returns its evidence links. */
function checkAdvisor(id, shown) {
  assert.equal(shown.tool, 'advisor', `${id}: opens on the Advisor`);
  assert.equal(shown.firstOption, 'advisor', 'the Advisor is the first tool');
  assert.ok(shown.findings.length > 0 || shown.none, `${id}: findings, or the line that there are none`);
  assert.ok(shown.findings.length + shown.unmeasured.length + shown.clear.length > 0, `${id}: the checks are listed`);
  const links = [];
  shown.findings.forEach((f, i) => {
    assert.equal(f.rank, `${i + 1}.`, `${id} ${f.id}: ranked`);
    assert.ok(f.title.length > f.rank.length, `${id} ${f.id}: titled`);
    assert.match(f.gain, /^Saves [\d.,]+(–[\d.,]+)? ms (a step|of the profiled time)( \([\d.,]+(–[\d.,]+)?%\))?$/, `${id} ${f.id}`);
    assert.match(f.cost, /^[\d.,]+ ms (a step|of the profiled time)$/, `${id} ${f.id}`);
    assert.match(f.share, /^[\d.,]+% of the (step|profiled time)$/, `${id} ${f.id}`);
    assert.ok(['low', 'medium', 'high'].includes(f.confidence), `${id} ${f.id}: confidence`);
    assert.ok(f.summary.length > 0 && f.fix.trim().length > 0, `${id} ${f.id}: summary and fix`);
    assert.equal(f.markup, 0, `${id} ${f.id}: texts are text`);
    for (const e of f.evidence) {
      assert.ok(e.label && e.value, `${id} ${f.id}: evidence ${JSON.stringify(e)}`);
      if (e.href == null) continue;
      const params = hashParams(e.href);
      assert.equal(params.tool, e.tool, `${id}: the link's hash names its tool`);
      assert.ok(params.run && params.host, `${id}: the link's hash names its run and host: ${e.href}`);
      links.push(e);
    }
  });
  return links;
}

/** Follows `link`: the page shows its tool, and the hash is the link's. */
async function follow(page, id, link) {
  await page.locator(`a.evidence-open[href="${link.href}"]`).first().click();
  await page.locator(`#tool-${link.tool}`).waitFor({ timeout: 120_000 });
  assert.equal(await page.locator('#tool').inputValue(), link.tool, `${id}: the link chose its tool`);
  const want = hashParams(link.href);
  const got = hashParams(await page.evaluate(() => location.hash));
  if (link.tool === 'trace_viewer') {
    await page.waitForFunction(() => window.__proflensTrace?.firstFrameAt != null, null, { timeout: 60_000 });
    if (want.t) {
      // The viewer shows the linked range (ps), as the hash says.
      const [start, end] = want.t.match(/^(-?\d+)-(-?\d+)$/).slice(1).map(Number);
      const view = await page.evaluate(() => window.__proflensTrace.state());
      const slack = (end - start) * 0.01;
      assert.ok(Math.abs(view.start - start) <= slack && Math.abs(view.end - end) <= slack,
        `${id}: viewer at ${view.start}–${view.end}, link ${want.t}`);
    }
  }
  assert.deepEqual(got, want, `${id}: the hash after the click is the link's`);
}

test('the Advisor opens on every demo, ranked, its links open their tools, axe-clean in light', async () => {
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/`);
  const report = {};
  let tracedRange = false;
  let followed = 0;
  for (const id of DEMOS) {
    await openDemo(page, id);
    const shown = await advisorShown(page);
    const links = checkAdvisor(id, shown);
    report[id] = `${shown.findings.map((f) => f.id).join(',') || 'none'}; unmeasured ${shown.unmeasured.length}; clear ${shown.clear.length}; links ${links.length}`;
    assert.deepEqual(await seriousViolations(page, { colorScheme: 'light' }), [], `${id}: axe, light`);
    await page.screenshot({ path: path.join(ARTIFACTS, `advisor-${id}.png`), fullPage: true });
    // One link a demo: a trace link with a time range once (the first there
    // is), otherwise the first link (cheaper than the trace viewer).
    const ranged = links.find((l) => l.tool === 'trace_viewer' && hashParams(l.href).t);
    const link = !tracedRange && ranged ? ranged : links.find((l) => l.tool !== 'trace_viewer') ?? links[0];
    if (link) {
      await follow(page, id, link);
      tracedRange ||= link === ranged;
      followed += 1;
    }
  }
  console.log(`# advisor: ${JSON.stringify(report)}`);
  assert.ok(followed > 0, 'at least one demo has evidence to follow');
  assert.ok(tracedRange, 'a trace link with a time range was followed');
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});

test('the Advisor is axe-clean in dark', async () => {
  // A page of its own: Firefox takes the scheme from the page's context.
  const { page, seen, close } = await openPage(env.browser, `${env.server.url}/#demo=input-bound`, { colorScheme: 'dark' });
  await page.locator('#tool-advisor #advisor-basis').waitFor({ timeout: 120_000 });
  assert.deepEqual(await seriousViolations(page, { colorScheme: 'dark' }), [], 'axe, dark');
  // Dark indeed: the page's ground is dark.
  const ground = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  assert.match(ground, /^rgb\((\d{1,2}), (\d{1,2}), (\d{1,2})\)$/, ground);
  await page.screenshot({ path: path.join(ARTIFACTS, 'advisor-dark.png'), fullPage: true });
  assertOwnOrigin(seen, env.server.url);
  assert.deepEqual(seen.errors, []);
  await close();
});
