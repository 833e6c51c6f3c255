// A stand-in for OpenClaw's plugin host, for tests/hook_openclaw.rs: loads the
// plugin of examples/openclaw/thinker-recall as OpenClaw does (its default export's
// `register(api)`), then fires `before_prompt_build` with each prompt given and prints
// one JSON line per prompt: {"prompt", "result"} (result: what the hook returned).
//
//   node host.mjs PLUGIN_DIR OPTIONS_JSON PROMPT...
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [dir, optionsJson, ...prompts] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "openclaw.plugin.json"), "utf8"));
const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
const entry = path.join(dir, pkg.openclaw.extensions[0]);
const plugin = (await import(pathToFileURL(entry).href)).default;
if (plugin.id !== manifest.id) throw new Error(`id ${plugin.id} != manifest ${manifest.id}`);

const handlers = {};
const warnings = [];
plugin.register({
  id: manifest.id,
  pluginConfig: JSON.parse(optionsJson),
  logger: { warn: (l) => warnings.push(l), info: () => {}, error: (l) => warnings.push(l) },
  on: (name, handler) => { (handlers[name] ??= []).push(handler); },
});
if (!handlers.before_prompt_build) throw new Error("no before_prompt_build hook registered");
for (const prompt of prompts) {
  const event = prompt.startsWith("messages:")
    ? { messages: [{ role: "user", content: [{ type: "text", text: prompt.slice(9) }] }] }
    : { prompt, messages: [] };
  const result = await handlers.before_prompt_build[0](event, { agentId: "main", sessionKey: "test" });
  console.log(JSON.stringify({ prompt, result: result ?? null, warnings }));
}
