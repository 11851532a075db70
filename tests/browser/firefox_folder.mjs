// Choosing a folder in Firefox under test. Firefox's WebDriver BiDi
// `input.setFiles` takes files only (a folder fails with "File error: Is
// directory"), so Playwright cannot fill a `webkitdirectory` input there the
// way it does in Chromium. This does what Firefox's own folder picker does,
// with File objects Firefox reads from disk itself: the folder's files are set
// on a scratch input through BiDi, each gets the `webkitRelativePath` the
// picker gives ("<folder>/<path inside it>"), and they are put on the folder
// input, followed by its `input` and `change` events. The app's handling of
// the folder (paths, runs, hosts) is what the tests then check, unchanged.
import fs from 'node:fs';
import path from 'node:path';

/** Makes `page.setInputFiles(selector, folder)` pick a folder in Firefox; files go through as before. */
export function letFirefoxPickFolders(page) {
  const setFiles = page.setInputFiles.bind(page);
  page.setInputFiles = async (selector, files, options) => {
    const items = Array.isArray(files) ? files : [files];
    const folder = items.length === 1 && typeof items[0] === 'string' && fs.statSync(items[0]).isDirectory();
    if (!folder) return setFiles(selector, files, options);
    const root = path.resolve(items[0]);
    const paths = filesUnder(root);
    const relative = paths.map((p) => [path.basename(root), ...path.relative(root, p).split(path.sep)].join('/'));
    const scratch = await page.evaluateHandle(() => {
      const input = document.createElement('input');
      input.type = 'file';
      input.multiple = true;
      input.hidden = true;
      document.body.append(input);
      return input;
    });
    await scratch.setInputFiles(paths, options);
    await page.locator(selector).evaluate((input, [from, names]) => {
      const chosen = new DataTransfer();
      for (const file of from.files) chosen.items.add(file);
      from.remove();
      input.files = chosen.files;
      [...input.files].forEach((file, i) => Object.defineProperty(file, 'webkitRelativePath', { value: names[i] }));
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, [scratch, relative], options);
    await scratch.dispose();
  };
}

/** Every file under `root` (links followed, as the picker does), in path order. */
function filesUnder(root) {
  return fs.readdirSync(root, { recursive: true })
    .map((rel) => path.join(root, rel))
    .filter((p) => fs.statSync(p, { throwIfNoEntry: false })?.isFile())
    .sort();
}
