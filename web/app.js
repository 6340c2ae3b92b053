// app.js: the web calculator's page. Each change builds one kvplan_json
// request (docs/json-api.md), runs it in the WebAssembly library and shows
// the document it answers, with the kvplan command line that gives the
// same plan.
"use strict";

const $ = (id) => document.getElementById(id);
let kv = null;

// One request in, one document out (kvplan_json, kvplan_json.h); the
// status is the library's (kvplan_status).
function call(request) {
  const text = JSON.stringify(request);
  const n = kv.lengthBytesUTF8(text) + 1;
  const req = kv._malloc(n), out = kv._malloc(4), len = kv._malloc(4);
  try {
    kv.stringToUTF8(text, req, n);
    const status = kv._kvplan_json(req, n - 1, out, len);
    const doc = kv.getValue(out, "i32");
    const answer = kv.UTF8ToString(doc, kv.getValue(len, "i32"));
    kv._kvplan_json_free(doc);
    return { status, doc: JSON.parse(answer) };
  } finally {
    kv._free(req); kv._free(out); kv._free(len);
  }
}

// The form as sglang's flags (ServerArgs names), and as the command line.
function flags() {
  const f = { gpu: $("gpu").value, tp_size: Number($("tp").value) };
  if ($("dtype").value !== "auto") f.kv_cache_dtype = $("dtype").value;
  if ($("context").value) f.context_length = Number($("context").value);
  if ($("fraction").value) f.mem_fraction_static = Number($("fraction").value);
  if ($("version").value) f.sglang_version = $("version").value;
  if ($("spec").value) {
    f.speculative_algorithm = $("spec").value;
    if ($("draft").value && $("spec").value !== "NEXTN")
      f.speculative_draft_model_path = $("draft").value;
    f.speculative_num_steps = Number($("steps").value);
    f.speculative_eagle_topk = Number($("topk").value);
    f.speculative_num_draft_tokens = Number($("drafts").value);
  }
  return f;
}

// sglang's and vLLM's switches for a context longer than the model's
const LONG = { SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: "1", VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1" };

function commandLine(request) {
  const words = Object.entries(request.env || {}).map(([k, v]) => k + "=" + v);
  words.push("kvplan");
  if (request.command) words.push(request.command);
  const pasted = request.config !== undefined;
  words.push("--model-path", pasted ? "-" : request.model);
  for (const [key, value] of Object.entries(request.flags))
    words.push("--" + key.replace(/_/g, "-"), String(value));
  words.push("--json");
  return words.join(" ") + (pasted ? " < config.json" : "");
}

function request() {
  const r = { flags: flags(), svg: true };
  if ($("long").checked) r.env = Object.assign({}, LONG);
  const pasted = $("config").value.trim();
  if (pasted) r.config = pasted;
  else r.model = $("model").value;
  return r;
}

// numbers as a reader reads them: thousands grouped, at most two decimals
// (DeepSeek V4's 7705.450000000001 bytes per token is 7,705.45)
const fmt = (n) => (typeof n === "number"
  ? n.toLocaleString("en-US", { maximumFractionDigits: 2 }) : String(n));
const fixed = (n, digits) => n.toLocaleString("en-US", { minimumFractionDigits: digits,
                                                        maximumFractionDigits: digits });

// The engines side by side (kvplan compare), a row each; an engine that
// cannot plan this model says why.
function showEngines(req) {
  const creq = Object.assign({}, req, { command: "compare" });
  $("compare-command").textContent = commandLine(creq);
  const body = $("engines").tBodies[0];
  body.innerHTML = "";
  const { doc } = call(creq);
  $("engine-rules").textContent = ["vllm", "trtllm"]
    .filter((k) => doc[k] && doc[k].rules).map((k) => k + ": " + doc[k].rules).join("; ");
  for (const e of doc.engines || []) {
    const tr = body.insertRow();
    tr.insertCell().textContent = e.engine;
    if (e.error) {
      const td = tr.insertCell();
      td.colSpan = 5;
      td.className = "error";
      td.textContent = e.error;
      continue;
    }
    for (const v of [fixed(e.kv_cache_gib, 2), fmt(e.tokens),
                     fixed(e.concurrency, 2) + " of " + fmt(e.request_tokens),
                     fixed(e.weights_gib, 2), e.tokens_are])
      tr.insertCell().textContent = v;
  }
}

function show() {
  for (const id of ["steps", "topk", "drafts"]) $(id).disabled = !$("spec").value;
  $("draft").disabled = !$("spec").value || $("spec").value === "NEXTN";
  const req = request();
  const { status, doc } = call(req);
  const plain = Object.assign({}, req);
  delete plain.svg;
  $("command").textContent = commandLine(plain);
  $("error").textContent = doc.error ? doc.message : "";
  remedy(doc, plain);
  showFit(plain);
  saveLink();
  showEngines(plain);
  // the command's exit status: the error's, else 0 (1 where the whole
  // answer says it does not fit: KVPLAN_NOT_ENOUGH_MEMORY, status 3)
  const exit = doc.error ? doc.exit_status : status === 3 ? 1 : 0;
  document.body.dataset.status = String(exit);
  const set = (id, v) => { $(id).textContent = v; };
  if (doc.error) {
    for (const id of ["tokens", "requests", "concurrency", "context-len", "cell",
                      "fraction-out", "available", "configurator"]) set(id, "-");
    $("pools").tBodies[0].innerHTML = "";
    $("picture").innerHTML = "";
    $("warnings").innerHTML = "";
    $("sources").innerHTML = "";
    $("notes").innerHTML = "";
    return;
  }
  set("tokens", fmt(doc.max_total_num_tokens));
  set("requests", fmt(doc.max_running_requests));
  set("concurrency", fmt(doc.capacity.max_concurrency_at_context_len));
  set("context-len", fmt(doc.context_len));
  // DeepSeek V4 prices a full token and its compressed share together (a
  // float's repr, as Python prints it: a string, exact)
  set("cell", fmt(Number(doc.cell_size !== undefined ? doc.cell_size
                                                     : doc.bytes_per_full_token)));
  set("fraction-out", doc.budget.mem_fraction_static === undefined ? "given"
      : String(Number(doc.budget.mem_fraction_static.toFixed(4))));
  set("available", fixed(doc.available_bytes / 1073741824, 2));
  set("configurator", doc.configurator.replace("PoolConfigurator", ""));
  const body = $("pools").tBodies[0];
  body.innerHTML = "";
  for (const p of doc.capacity.pools) {
    const tr = body.insertRow();
    for (const v of [p.name, fmt(p.capacity_tokens), fmt(Number(p.bytes_per_token)),
                     fmt(p.context_len_request_tokens)])
      tr.insertCell().textContent = v;
  }
  $("warnings").innerHTML = "";
  for (const w of doc.warnings) {
    const li = document.createElement("li");
    li.textContent = typeof w === "string" ? w : (w.message || JSON.stringify(w));
    $("warnings").appendChild(li);
  }
  $("picture").innerHTML = doc.svg || "";
  showSources(doc);
  window.kvplanLast = { request: plain, doc };
}

// Each figure's source: exact (sglang's own arithmetic), measured,
// preset or estimated, and the rules it follows.
function showSources(doc) {
  const v = doc.sglang_version || {};
  $("rules").textContent = "sglang's rules: " + (v.profile || "seed") +
    (v.profile === "seed" || !v.profile ? " (commit 6cc9352d, about 0.5.16)" : "") +
    (v.exact === false ? ", approximate" : ", exact") +
    "; the pools' arithmetic is exact, the budget's terms are labelled below";
  const list = $("sources");
  list.innerHTML = "";
  const add = (text) => { const li = document.createElement("li"); li.textContent = text; list.appendChild(li); };
  const t = (doc.budget && doc.budget.terms) || {};
  if (doc.budget && doc.budget.given) add("the KV budget: given (available_bytes)");
  if (t.gpu) add("GPU memory: " + fmt(t.gpu.total_mib) + " MiB (" + t.gpu.source + ")");
  if (t.context) add("CUDA context: " + fixed(t.context.gib, 2) + " GiB (" + t.context.source +
                     (t.context.basis ? ": " + t.context.basis : "") + ")");
  if (t.weights) add("weights: " + fixed(t.weights.estimated_gib || 0, 2) + " GiB (" + t.weights.source +
                     (t.weights.basis ? ": " + t.weights.basis : "") + ")");
  const notes = $("notes");
  notes.innerHTML = "";
  for (const n of doc.notes || []) {
    const li = document.createElement("li");
    li.textContent = n;
    notes.appendChild(li);
  }
}

// The form's inputs by the option they set, for an error's remedy.
const INPUT_OF = { gpu: "gpu", tp_size: "tp", kv_cache_dtype: "dtype", context_length: "context",
                   mem_fraction_static: "fraction", sglang_version: "version",
                   speculative_algorithm: "spec", speculative_draft_model_path: "draft",
                   speculative_num_steps: "steps", speculative_eagle_topk: "topk",
                   speculative_num_draft_tokens: "drafts", model: "model", config: "config" };

// An error's remedy: the form's input that moves it, marked, or the
// command line to run where the form has no such input.
function remedy(doc, req) {
  for (const el of document.querySelectorAll(".fix")) el.classList.remove("fix");
  $("remedy").textContent = "";
  if (!doc.error) return;
  const words = [];
  if (/SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN|VLLM_ALLOW_LONG_MAX_MODEL_LEN/.test(doc.message)) {
    $("long").classList.add("fix");
    words.push("tick \"allow a context longer than the model's\", or lower the context length");
  }
  const id = INPUT_OF[doc.field];
  if (id) {
    $(id).classList.add("fix");
    words.push("change " + (document.querySelector("label[for='" + id + "']") || {}).textContent +
               " in the form");
  } else if (doc.field && !words.length) {
    words.push("the form has no " + doc.field + "; on the command line: " + commandLine(req) +
               " --" + doc.field.replace(/_/g, "-") + " VALUE");
  }
  $("remedy").textContent = words.length ? "To fix: " + words.join("; ") + "." : "";
}

// kvplan fit for the users asked for: the longest context each gets.
function showFit(req) {
  const users = Number($("users").value);
  $("fit-out").textContent = "";
  if (!users) return;
  const freq = Object.assign({}, req, { command: "fit",
                                        flags: Object.assign({}, req.flags, { concurrency: users }) });
  delete freq.flags.context_length;
  const { doc } = call(freq);
  $("fit-out").textContent = doc.error ? users + " users: " + doc.message
    : fmt(users) + " users fit up to a context of " + fmt(doc.context_length) +
      " tokens each (" + doc.binding + " binds): " + commandLine(freq);
}

// The form's state in the page's address (#gpu=H200&tp=8), to share.
const LINKED = ["model", "gpu", "tp", "dtype", "context", "fraction", "version", "spec", "draft",
                "steps", "topk", "drafts", "users", "long"];
function saveLink() {
  const q = new URLSearchParams();
  for (const id of LINKED) {
    const el = $(id);
    const v = el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
    if (v !== "" && v !== el.dataset.initial) q.set(id, v);
  }
  const hash = "#" + q.toString();
  if (location.hash !== hash) history.replaceState(null, "", hash);
  $("link").href = hash;
}
function loadLink() {
  for (const id of LINKED) $(id).dataset.initial =
    $(id).type === "checkbox" ? "" : $(id).value;
  const q = new URLSearchParams(location.hash.slice(1));
  for (const [id, v] of q) {
    if (!LINKED.includes(id)) continue;
    if ($(id).type === "checkbox") $(id).checked = v === "1";
    else $(id).value = v;
  }
}

kvplanModule().then((module) => {
  kv = module;
  // the EAGLE heads are drafts, not models to serve
  for (const m of call({ command: "models" }).doc) {
    const o = new Option(m.name + (m.hf_id ? "  (" + m.hf_id + ")" : ""), m.name);
    $(m.draft_head ? "draft" : "model").add(o);
  }
  $("model").value = "llama-3.1-8b-instruct";
  for (const g of call({ command: "gpus" }).doc)
    $("gpu").add(new Option(g.name + " (" + Math.round(g.total_mib / 1024) + " GiB)", g.name));
  $("gpu").value = "H100-80GB";
  loadLink();
  for (const el of document.querySelectorAll("select, input, textarea"))
    el.addEventListener(el.tagName === "SELECT" || el.type === "checkbox" ? "change" : "input", show);
  show();
  document.body.dataset.ready = "1";
});
