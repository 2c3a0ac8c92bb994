// git-loop's OpenCode plugin, written by `git loop install opencode`.
//
// When a session goes idle it runs git-loop's hook with what the session said and spent,
// and when git-loop answers {"decision":"block","reason":…} (the loop's gates fail, or its
// promise is missing) it sends the reason as the session's next prompt. OpenCode does not
// wait for a plugin's event handler, so the session goes on only where OpenCode keeps
// running after the turn: its TUI, or `opencode serve` with `opencode run --attach URL`.
// Plain `opencode run` exits at the first idle: drive it with
// `git loop run -- opencode run {prompt}` instead.
//
// If git-loop is missing, fails, answers anything else or runs longer than hookTimeoutMs,
// the session just stops. git-loop leaves an edited copy of this file alone; remove it and
// run `git loop install opencode` again to get git-loop's.
import { spawn } from "node:child_process";

const hookCommand = "git-loop hook opencode session-idle";
const hookTimeoutMs = 660000; // what the gates need, as `git loop install` computed it
const maxPayload = 4 << 20; // characters of the JSON the hook reads; the oldest messages go first
const maxText = 256 << 10; // characters kept of a message's text (its end)
const maxCommand = 64 << 10; // characters kept of a shell command
const maxAnswer = 1 << 20; // bytes read of the hook's answer

export const GitLoop = async ({ client, directory }) => {
  // Sessions whose hook runs now, one at a time each, shared by every copy of this plugin
  // OpenCode loads (the project's and the user's both run): the first copy to see an idle
  // judges it, so a stop is judged once and continued once.
  const running = (globalThis[Symbol.for("git-loop.idle")] ??= new Set());
  return {
    event: async ({ event }) => {
      const id = event?.type === "session.idle" ? event.properties?.sessionID : undefined;
      if (!id || running.has(id)) return;
      running.add(id);
      try {
        await onIdle(client, directory, id);
      } catch (err) {
        log(client, "error", `git-loop: ${err?.stack ?? err}`);
      } finally {
        running.delete(id);
      }
    },
  };
};

async function onIdle(client, directory, id) {
  const session = (await client.session.get({ path: { id } }))?.data;
  const all = (await client.session.messages({ path: { id } }))?.data;
  if (!Array.isArray(all)) return;
  const lastUser = all.findLastIndex((m) => m?.info?.role === "user");
  const messages = all.map((m, i) => digest(m, i > lastUser));
  const payload = { hook_event_name: "session.idle", session_id: id, parent_id: session?.parentID ?? "", directory, omitted: 0, messages };
  let input = JSON.stringify(payload);
  while (input.length > maxPayload && messages.length > 1) {
    const n = Math.ceil(messages.length / 4);
    messages.splice(0, n);
    payload.omitted += n;
    input = JSON.stringify(payload);
  }
  const answer = await runHook(client, directory, input);
  if (answer?.decision === "block" && typeof answer.reason === "string" && answer.reason.trim()) {
    const user = all[lastUser]?.info; // the session's agent and model go on
    await client.session.promptAsync({
      path: { id },
      body: { parts: [{ type: "text", text: answer.reason }], agent: user?.agent, model: user?.model },
    });
  }
  if (typeof answer?.systemMessage === "string" && answer.systemMessage) {
    await client.tui?.showToast?.({ body: { title: "git-loop", message: answer.systemMessage, variant: "info" } })?.catch?.(() => {});
  }
}

// digest is what the hook reads of one message: its id and role; an answer's tokens, error
// and shell commands; and the text of the answers since the last prompt (turn).
function digest(m, turn) {
  const info = m?.info ?? {};
  const out = { id: info.id, role: info.role };
  if (info.role !== "assistant") return out;
  out.tokens = info.tokens;
  if (info.error?.name) out.error = info.error.name;
  const parts = Array.isArray(m.parts) ? m.parts : [];
  if (turn) {
    const text = parts.filter((p) => p?.type === "text" && !p.synthetic && !p.ignored).map((p) => p.text ?? "").join("\n");
    out.text = text.length > maxText ? text.slice(-maxText) : text;
  }
  const commands = parts
    .filter((p) => p?.type === "tool" && p.tool === "bash" && typeof p.state?.input?.command === "string")
    .map((p) => p.state.input.command.slice(0, maxCommand));
  if (commands.length) out.commands = commands;
  return out;
}

// runHook runs git-loop's hook with input on its standard input and resolves to its answer,
// parsed, or to {} when it cannot be run, fails, answers something else or times out
// (SIGTERM, which makes git-loop stop its gates; SIGKILL 5 s later). It resolves at the
// latest 2 s after the hook exits, should a process of its keep the output open.
function runHook(client, directory, input) {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let child;
    let done = false;
    let killer;
    const finish = (code) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(killer);
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      if (err.trim()) log(client, "info", err.trim());
      let answer = {};
      if (code === 0) {
        try {
          answer = JSON.parse(out || "{}");
        } catch {}
      }
      resolve(answer && typeof answer === "object" ? answer : {});
    };
    const timer = setTimeout(() => {
      log(client, "warn", `git-loop: ${hookCommand} ran longer than ${hookTimeoutMs} ms; the session stops`);
      child?.kill("SIGTERM");
      killer = setTimeout(() => {
        child?.kill("SIGKILL");
        finish(null);
      }, 5000);
    }, hookTimeoutMs);
    try {
      const [command, ...args] = hookCommand.split(" ");
      child = spawn(command, args, { cwd: directory, stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      log(client, "warn", `git-loop: cannot run ${hookCommand}: ${e?.message ?? e}`);
      return finish(null);
    }
    child.stdout.setEncoding("utf8"); // a character split across chunks stays whole
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (b) => {
      if (out.length < maxAnswer) out += b;
    });
    child.stderr.on("data", (b) => {
      if (err.length < maxAnswer) err += b;
    });
    child.stdin.on("error", () => {}); // a hook that exits without reading all of it
    child.on("error", (e) => {
      log(client, "warn", `git-loop: cannot run ${hookCommand}: ${e?.message ?? e}`);
      finish(null);
    });
    child.on("exit", (code) => setTimeout(() => finish(code), 2000).unref?.());
    child.on("close", (code) => finish(code));
    child.stdin.end(input);
  });
}

// log writes to OpenCode's log (its --print-logs, or its log directory), never failing.
function log(client, level, message) {
  try {
    client.app?.log?.({ body: { service: "git-loop", level, message } })?.catch?.(() => {});
  } catch {}
}
