// thinker-recall: an OpenClaw plugin whose `before_prompt_build` hook prepends what
// thinker's background memory holds about the user's prompt — exactly what
// `thinker show --format prompt --for PROMPT` prints (nothing when nothing matches).
// No dependencies; no model is called (thinker ranks its memory locally). Any failure
// (thinker missing, a timeout, an unreadable state) adds nothing and logs one line: the
// hook never breaks the agent.

import { execFile } from "node:child_process";

const DEFAULTS = { command: "thinker", timeoutMs: 3000 };

/** The user's prompt in a before_prompt_build event: `prompt`, else the last user message. */
export function promptOf(event) {
  if (event && typeof event.prompt === "string") return event.prompt;
  const messages = Array.isArray(event?.messages) ? event.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content.filter((c) => c?.type === "text").map((c) => c.text).join("\n");
    }
  }
  return "";
}

/** `thinker show --format prompt --for PROMPT`'s stdout ("" on any failure). */
export function recall(prompt, options = {}, log = () => {}) {
  const o = { ...DEFAULTS, ...options };
  const args = [];
  if (o.config) args.push("--config", o.config);
  if (o.state) args.push("--state", o.state);
  args.push("show", "--format", "prompt", "--for", prompt);
  if (o.now) args.push("--now", o.now); // tests: a fixed instant
  return new Promise((resolve) => {
    execFile(o.command, args, { timeout: o.timeoutMs, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) {
        log(`thinker-recall: ${o.command} failed (${error.code ?? error.signal ?? error.message}): ${String(stderr).trim()}`);
        resolve("");
        return;
      }
      resolve(String(stdout));
    });
  });
}

export default {
  id: "thinker-recall",
  name: "thinker-recall",
  description: "thinker's background memory for the prompt, prepended",
  register(api) {
    const options = api.pluginConfig ?? api.config?.plugins?.entries?.["thinker-recall"]?.config ?? {};
    const log = (line) => api.logger?.warn?.(line);
    api.on("before_prompt_build", async (event) => {
      const prompt = promptOf(event).trim();
      if (!prompt) return undefined;
      const block = await recall(prompt, options, log);
      return block ? { prependContext: block } : undefined;
    });
  },
};
