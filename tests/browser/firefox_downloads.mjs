// Downloads of blob: URLs in Firefox under test. Firefox ESR saves them (its
// WebDriver BiDi events `browsingContext.downloadWillBegin` and `downloadEnd`
// report the file, status "complete", in Playwright's download folder), but
// sends them with `navigation: null`: a blob download starts no navigation.
// Playwright 1.64 pairs the two events by navigation id and drops events
// without one, so `page.waitForEvent('download')` never fires. This gives such
// events an id of their own (the blob URL, unique per download) before
// Playwright sees them; the test then reads the very file Firefox wrote.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const DOWNLOAD_EVENTS = new Set(['browsingContext.downloadWillBegin', 'browsingContext.downloadEnd']);
let installed = false;

/** Lets Playwright see Firefox's blob: downloads. Call before launching Firefox. */
export function reportFirefoxBlobDownloads() {
  if (installed) return;
  // The same module instance `import 'playwright-core'` uses (package.json pins the version).
  const { utils } = require('playwright-core/lib/coreBundle');
  const helper = utils?.eventsHelper;
  if (typeof helper?.addEventListener !== 'function') {
    throw new Error('playwright-core changed: utils.eventsHelper.addEventListener is gone; revisit firefox_downloads.mjs');
  }
  const addEventListener = helper.addEventListener;
  helper.addEventListener = (emitter, eventName, handler) => {
    const paired = DOWNLOAD_EVENTS.has(eventName)
      ? (event) => handler(event?.navigation || event?.download ? event : { ...event, download: `blob-download ${event?.url}` })
      : handler;
    return addEventListener.call(helper, emitter, eventName, paired);
  };
  installed = true;
}
