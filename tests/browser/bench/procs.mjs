// Memory of processes from Linux's /proc (null elsewhere): the browser's
// renderer (page and worker share it) and the xprof-rs server.
import fs from 'node:fs';

/** `{rss, peak}` bytes of a process (VmRSS, VmHWM), or null. */
export function memoryOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1]) * 1024;
    return { rss: kib('VmRSS'), peak: kib('VmHWM') };
  } catch {
    return null;
  }
}

/** Pids of every process below `root` (this process by default). */
function descendants(root = process.pid) {
  let children;
  try {
    children = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
  const parent = new Map();
  for (const pid of children) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone since the listing.
    }
  }
  const found = [];
  const walk = (p) => {
    for (const [pid, ppid] of parent) {
      if (ppid === p) {
        found.push(pid);
        walk(pid);
      }
    }
  };
  walk(root);
  return found;
}

/** Pids of the browser's renderer processes started by this process. */
export function rendererPids() {
  return descendants().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
    } catch {
      return false;
    }
  });
}
