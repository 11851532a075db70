// Once a profile is on screen the open bar is folded into the header's
// "Open…" menu (crates/app/src/shell/open_bar.rs): tests that open another
// profile or a demo from it show it first.

/** Shows the pickers and the demo menu: the bar is there, or "Open…" opens it. */
export async function showOpenControls(page) {
  await page.locator('#open').waitFor({ state: 'attached', timeout: 30_000 });
  if (await page.locator('#open').isVisible()) return;
  await page.click('#open-menu');
  await page.locator('#open').waitFor();
}
