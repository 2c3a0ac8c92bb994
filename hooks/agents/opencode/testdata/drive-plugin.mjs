// Loads the plugin at argv[2] as OpenCode does (every named export is a plugin), with a
// client that serves the session in argv[3] ({"info": Session, "messages": [...]}) and
// records what the plugin asks of it, sends it the events in argv[4] (a JSON array; the
// plugin's handlers run at once, as OpenCode does not wait for them, and are then awaited),
// and prints the recorded calls as JSON.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [plugin, sessionFile, eventsJSON] = process.argv.slice(2);
const mod = await import(pathToFileURL(plugin).href);
const exports = Object.keys(mod);
const session = JSON.parse(readFileSync(sessionFile, "utf8"));
const calls = [];
const client = {
  session: {
    get: async ({ path }) => ({ data: { ...session.info, id: path.id } }),
    messages: async () => ({ data: session.messages }),
    promptAsync: async (req) => {
      calls.push({ prompt: req });
      return { data: undefined };
    },
  },
  tui: {
    showToast: async (req) => {
      calls.push({ toast: req.body.message });
      return { data: true };
    },
  },
  app: {
    log: async (req) => {
      calls.push({ log: req.body.level + ": " + req.body.message });
      return { data: true };
    },
  },
};
const hooks = await mod[exports[0]]({ client, directory: process.cwd(), worktree: process.cwd() });
await Promise.all(JSON.parse(eventsJSON).map((event) => hooks.event({ event })));
process.stdout.write(JSON.stringify({ exports, calls }));
