// test.mjs: the web calculator in headless Chromium (playwright-core): for
// a set of models and settings, the page's numbers equal those of the
// kvplan command run with the command line the page shows; a screenshot
// is written beside the page.
//   node web/test.mjs PAGE_DIR KVPLAN_BINARY SOURCE_DIR
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const [dir, kvplan, source] = process.argv.slice(2);
const llama = readFileSync(path.join(source, "data/models/llama-3.1-8b-instruct/config.json"), "utf8");
const cases = [
  { model: "llama-3.1-8b-instruct", gpu: "H100-80GB", tp: "1" },
  { model: "gpt-oss-120b", gpu: "H100-80GB", tp: "2" },                 // hybrid SWA
  { model: "deepseek-v3", gpu: "H200", tp: "8", spec: "NEXTN" },         // MLA, MTP
  { model: "deepseek-v3", gpu: "H200", tp: "8", version: "main" },       // a later sglang
  { model: "gpt-oss-120b", gpu: "H100-80GB", tp: "2", spec: "EAGLE3",    // an EAGLE head
    draft: "eagle3-gpt-oss-120b" },
  { model: "deepseek-v3.2", gpu: "B200", tp: "8", dtype: "fp8_e4m3" },   // DSA
  { model: "qwen3-next-80b-a3b-thinking", gpu: "H100-80GB", tp: "4" },   // mamba hybrid
  { model: "deepseek-v4-flash", gpu: "B200", tp: "4" },                  // DSV4
  { model: "qwen3-8b", gpu: "L4", tp: "1", context: "16384", fraction: "0.8" },
  { config: llama, gpu: "A100-80GB", tp: "2", context: "8192" },         // pasted
  { model: "deepseek-v3", gpu: "L4", tp: "1", fails: true },             // does not fit
];
let passed = 0, failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else { failed++; console.error("FAILED: " + what); }
};
const num = (t) => Number(t.replace(/,/g, ""));
const fixed = (n) => n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

// "kvplan ARGS --json [< config.json]" as the page prints it, run
function run(command, input) {
  const words = command.replace(/ < config\.json$/, "").split(" ").slice(1);
  try {
    return { doc: JSON.parse(execFileSync(kvplan, words, { input, stdio: ["pipe", "pipe", "pipe"] })), status: 0 };
  } catch (e) {
    return { doc: JSON.parse(e.stdout.toString()), status: e.status };
  }
}

// the engines' table against `kvplan compare` run with the line it shows
async function checkEngines(name, input) {
  const shown = await page.evaluate(() => ({
    command: document.getElementById("compare-command").textContent,
    rows: [...document.querySelectorAll("#engines tbody tr")].map(
      (tr) => [...tr.cells].map((td) => td.textContent)),
  }));
  check(shown.command.startsWith("kvplan compare "), name + ": the compare command is shown");
  const { doc } = run(shown.command, input);
  check(shown.rows.length === doc.engines.length && doc.engines.length === 3, name + ": three engines");
  doc.engines.forEach((e, i) => {
    const row = shown.rows[i] || [];
    check(row[0] === e.engine, name + ": engine " + i + " is " + e.engine);
    if (e.error) {
      check(row[1] === e.error, name + ": " + e.engine + " says the command's error");
      return;
    }
    check(row[1] === fixed(e.kv_cache_gib) && num(row[2]) === e.tokens &&
          row[3] === fixed(e.concurrency) + " of " + e.request_tokens.toLocaleString("en-US") &&
          row[4] === fixed(e.weights_gib) && row[5] === e.tokens_are,
          name + ": " + e.engine + "'s row " + JSON.stringify(row) + " is the command's");
  });
  return doc;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
await page.goto("file://" + path.resolve(dir, "index.html"));
await page.waitForSelector("body[data-ready='1']", { timeout: 30000 });
check((await page.locator("#model option").count()) > 50, "the catalog fills the model list");
check((await page.locator("#model option[value^='eagle3-']").count()) === 0 &&
      (await page.locator("#draft option[value^='eagle3-']").count()) >= 5,
      "the EAGLE heads are in the draft list, not the model list");

// The form set to a case (what it leaves out at its default).
async function setForm(c) {
  await page.fill("#config", c.config || "");
  if (c.model) await page.selectOption("#model", c.model);
  await page.selectOption("#gpu", c.gpu);
  await page.selectOption("#tp", c.tp);
  await page.selectOption("#dtype", c.dtype || "auto");
  await page.fill("#context", c.context || "");
  await page.fill("#fraction", c.fraction || "");
  await page.selectOption("#version", c.version || "");
  await page.selectOption("#spec", c.spec || "");
  // the draft list is open to EAGLE only (NEXTN drafts with the model's own layers)
  if (c.spec && c.spec !== "NEXTN") await page.selectOption("#draft", c.draft || "");
  await page.fill("#users", c.users || "");
}

for (const c of cases) {
  const name = c.model || "pasted config.json";
  await setForm(c);
  const shown = await page.evaluate(() => {
    const t = (id) => document.getElementById(id).textContent;
    return { tokens: t("tokens"), requests: t("requests"), concurrency: t("concurrency"),
             context: t("context-len"), cell: t("cell"), fraction: t("fraction-out"),
             command: t("command"), error: t("error"), status: document.body.dataset.status };
  });
  const { doc, status } = run(shown.command, c.config || "");
  check(String(status) === shown.status, name + ": exit status " + status + " vs the page's " + shown.status);
  const cmp = await checkEngines(name, c.config || "");
  if (c.fails) {
    // the library answers a request in its terms (--tp-size: tp_size)
    const terms = (m) => m.replace(/(^|[ (])--([a-z0-9-]+)/g,
                                   (_, pre, f) => pre + f.replace(/-/g, "_"));
    check(doc.error && terms(shown.error) === terms(doc.message),
          name + ": the page says the command's error");
    continue;
  }
  check(!shown.error, name + ": plans (" + shown.error + ")");
  check(num(shown.tokens) === doc.max_total_num_tokens, name + ": max_total_num_tokens " + shown.tokens + " vs " + doc.max_total_num_tokens);
  check(num(shown.requests) === doc.max_running_requests, name + ": max_running_requests");
  check(num(shown.concurrency) === doc.capacity.max_concurrency_at_context_len, name + ": concurrency");
  check(num(shown.context) === doc.context_len, name + ": context_len");
  // numbers as read: grouped, at most two decimals (DSV4's 7705.450000000001)
  const cell = Number(doc.cell_size !== undefined ? doc.cell_size : doc.bytes_per_full_token);
  check(Math.abs(num(shown.cell) - cell) < 0.005, name + ": cell_size " + shown.cell + " vs " + cell);
  check(Math.abs(Number(shown.fraction) - doc.budget.mem_fraction_static) < 5e-5, name + ": mem_fraction_static");
  const pools = await page.evaluate(() => [...document.querySelectorAll("#pools tbody tr")].map(
    (tr) => tr.cells[2].textContent));
  check(pools.every((b) => /^[0-9,]+(\.[0-9]{1,2})?$/.test(b)), name + ": pool bytes formatted " + pools.join(" "));
  // where each figure comes from, and whose rules
  const src = await page.evaluate(() => document.getElementById("sources").textContent +
                                        " | " + document.getElementById("rules").textContent);
  check(src.includes("(preset)") && src.includes("(estimated") && src.includes("sglang's rules: " +
        doc.sglang_version.profile), name + ": sources and rules said: " + src);
  if (c.context) check(doc.context_len === Number(c.context), name + ": the context length asked for");
  if (c.draft) {
    check(shown.command.includes("--speculative-draft-model-path " + c.draft), name + ": the draft asked for");
    check(doc.allocated.draft_kv_bytes > 0, name + ": the draft's KV pool is priced");
  }
  if (c.version) check(shown.command.includes("--sglang-version " + c.version), name + ": the version asked for");
  // issue 14's acceptance: DeepSeek-V3 on 8 x H200 under main reserves 0.886
  if (c.version === "main") check(doc.budget.mem_fraction_static === 0.886, name + ": main's fraction 0.886");
  if (c.model === "deepseek-v4-flash")
    check(!cmp.engines[1].error && !cmp.engines[2].error, name + ": vLLM and TRT-LLM (on Blackwell) plan DSV4");
  console.log(name + " on " + c.tp + " x " + c.gpu + ": " + shown.tokens + " tokens, as the command");
}
// context for N users: kvplan fit, as the command line it shows answers
await setForm({ model: "llama-3.1-70b-instruct", gpu: "H100-80GB", tp: "4", users: "32" });
{
  const text = await page.evaluate(() => document.getElementById("fit-out").textContent);
  const line = text.slice(text.indexOf("kvplan fit"));
  const { doc } = run(line, "");
  check(text.startsWith("32 users fit up to a context of " + doc.context_length.toLocaleString("en-US")),
        "users: the page's fit is the command's: " + text);
}
// a link holds the form: opened again, the same plan
{
  const hash = await page.evaluate(() => location.hash);
  const tokens = await page.evaluate(() => document.getElementById("tokens").textContent);
  const again = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await again.goto("file://" + path.resolve(dir, "index.html") + hash);
  await again.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  const back = await again.evaluate(() => ({
    tokens: document.getElementById("tokens").textContent,
    model: document.getElementById("model").value, tp: document.getElementById("tp").value,
    users: document.getElementById("users").value }));
  check(hash.includes("tp=4") && back.tokens === tokens && back.model === "llama-3.1-70b-instruct" &&
        back.tp === "4" && back.users === "32", "the link round-trips: " + hash + " " + JSON.stringify(back));
  await again.close();
}
// a remedy the form can apply: a context longer than the model's
await setForm({ model: "qwen3-235b-a22b", gpu: "B200", tp: "8", context: "131072" });
{
  const r = await page.evaluate(() => ({ remedy: document.getElementById("remedy").textContent,
    marked: document.getElementById("long").classList.contains("fix"),
    vllm: [...document.querySelectorAll("#engines tbody tr")][1].textContent }));
  check(r.marked && r.remedy.includes("allow a context longer"), "the remedy is the form's: " + r.remedy);
  check(r.vllm.includes("VLLM_ALLOW_LONG_MAX_MODEL_LEN"), "vLLM's row refuses as vLLM does: " + r.vllm);
  await page.check("#long");
  const ok = await page.evaluate(() => ({ error: document.getElementById("error").textContent,
    command: document.getElementById("command").textContent }));
  check(!ok.error && ok.command.startsWith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 "),
        "ticked, it plans, and the command line says how: " + ok.command);
  await page.uncheck("#long");
  await page.fill("#context", "");
}
// a phone's width: nothing wider than the screen
{
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto("file://" + path.resolve(dir, "index.html") + "#model=deepseek-v4-flash&gpu=B200&tp=4");
  await phone.waitForSelector("body[data-ready='1']", { timeout: 30000 });
  const w = await phone.evaluate(() => ({ scroll: document.documentElement.scrollWidth,
    cell: document.getElementById("cell").textContent }));
  check(w.scroll <= 390, "390 px: the page is " + w.scroll + " px wide");
  check(w.cell === "7,705.45", "DeepSeek-V4's bytes per token: " + w.cell);
  await phone.screenshot({ path: path.join(dir, "screenshot-390.png"), fullPage: true });
  await phone.close();
}
// the picture of the first case, and a screenshot of the page
await setForm({ model: "gpt-oss-120b", gpu: "H100-80GB", tp: "2" });
check((await page.locator("#picture svg").count()) === 1, "the memory-split picture is drawn");
await page.screenshot({ path: path.join(dir, "screenshot.png"), fullPage: true });
check(errors.length === 0, "no error on the page: " + errors.join("; "));
await browser.close();
console.log("screenshot: " + path.join(dir, "screenshot.png"));
console.log(passed + " passed, " + failed + " failed");
process.exit(failed ? 1 : 0);
