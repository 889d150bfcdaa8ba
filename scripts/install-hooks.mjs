// Run by `npm install` (the `prepare` script): points git at the repository's own hooks (.githooks), so
// every contributor's commits pass the same checks. Outside a git checkout (a packed tarball) it does nothing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (existsSync('.git')) execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { stdio: 'inherit' });
