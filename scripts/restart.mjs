// `npm run restart`: asks the running `npm start` (the one on PORT_OFFSET's ports) to restart every service
// instance in turn, each stopped gracefully, started again and waited for until it is ready before the next
// (scripts/supervisor.mjs); prints each step, and exits 0 once every instance is back.
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { controlSocket } from './supervisor.mjs';

const socket = controlSocket(Number(process.env.PORT_OFFSET ?? 0));
const connection = connect(socket);
connection.once('error', (error) => {
  console.error(`restart: no npm start answers at ${socket} (${error.code}): is it running, with this PORT_OFFSET?`);
  process.exit(1);
});
connection.once('connect', () => connection.write('restart\n'));
let outcome = 'failed: the supervisor went away';
createInterface({ input: connection }).on('line', (line) => {
  console.log(`restart: ${line}`);
  outcome = line;
});
connection.once('close', () => process.exit(outcome === 'done' ? 0 : 1));
