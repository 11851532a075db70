// The `colorScheme` context option in Firefox under test. Playwright 1.64's
// WebDriver BiDi backend does not emulate `prefers-color-scheme` (its
// updateEmulateMedia is empty: `colorScheme: 'dark'` and `page.emulateMedia`
// change nothing in Firefox), and BiDi has no command for it. Firefox does
// have a preference for it, read at start: so a context asked for in dark is
// opened in a second Firefox started with that preference, as a user's
// Firefox on a dark system would be. `page.emulateMedia({ colorScheme })`
// cannot be honoured on a running page, and says so instead of passing quietly.

/** Firefox's own setting: what `prefers-color-scheme` answers in pages (0 dark, 1 light). */
export const CONTENT_SCHEME_PREF = 'layout.css.prefers-color-scheme.content-override';
const SCHEMES = { dark: 0, light: 1 };

/**
 * Makes `browser.newContext({ colorScheme })` honour `dark` and `light` in Firefox.
 * `launchWith(prefs)` starts another Firefox with extra preferences; it is
 * started once, on first use, and closed with `browser`.
 */
export function honourColorScheme(browser, launchWith) {
  const others = new Map();
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options = {}) => {
    const scheme = options.colorScheme;
    if (scheme != null && !(scheme in SCHEMES)) {
      throw new Error(`Firefox under test shows colorScheme 'dark' or 'light', not '${scheme}'`);
    }
    let context;
    if (scheme === 'dark') {
      if (!others.has(scheme)) others.set(scheme, launchWith({ [CONTENT_SCHEME_PREF]: SCHEMES[scheme] }));
      context = await (await others.get(scheme)).newContext(options);
    } else {
      context = await newContext(options);
    }
    refuseEmulateMedia(context);
    return context;
  };
  const close = browser.close.bind(browser);
  browser.close = async (...args) => {
    for (const other of others.values()) await (await other).close();
    return close(...args);
  };
}

function refuseEmulateMedia(context) {
  const newPage = context.newPage.bind(context);
  context.newPage = async (...args) => {
    const page = await newPage(...args);
    const emulateMedia = page.emulateMedia.bind(page);
    page.emulateMedia = async (options = {}) => {
      if (options.colorScheme !== undefined) {
        throw new Error("Firefox under WebDriver BiDi cannot change prefers-color-scheme on an open page; " +
          "open it in a context made with { colorScheme } (openPage's options) instead");
      }
      return emulateMedia(options);
    };
    return page;
  };
}
