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

function commandLine(request) {
  const words = request.command ? ["kvplan", request.command] : ["kvplan"];
  const pasted = request.config !== undefined;
  words.push("--model-path", pasted ? "-" : request.model);
  for (const [key, value] of Object.entries(request.flags))
    words.push("--" + key.replace(/_/g, "-"), String(value));
  words.push("--json");
  return words.join(" ") + (pasted ? " < config.json" : "");
}

function request() {
  const r = { flags: flags(), svg: true };
  const pasted = $("config").value.trim();
  if (pasted) r.config = pasted;
  else r.model = $("model").value;
  return r;
}

const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));
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
    return;
  }
  set("tokens", fmt(doc.max_total_num_tokens));
  set("requests", fmt(doc.max_running_requests));
  set("concurrency", fmt(doc.capacity.max_concurrency_at_context_len));
  set("context-len", fmt(doc.context_len));
  set("cell", String(doc.cell_size));
  set("fraction-out", String(doc.budget.mem_fraction_static));
  set("available", (doc.available_bytes / 1073741824).toFixed(2));
  set("configurator", doc.configurator.replace("PoolConfigurator", ""));
  const body = $("pools").tBodies[0];
  body.innerHTML = "";
  for (const p of doc.capacity.pools) {
    const tr = body.insertRow();
    for (const v of [p.name, fmt(p.capacity_tokens), String(p.bytes_per_token),
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
  window.kvplanLast = { request: plain, doc };
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
  for (const el of document.querySelectorAll("select, input, textarea"))
    el.addEventListener(el.tagName === "SELECT" ? "change" : "input", show);
  show();
  document.body.dataset.ready = "1";
});
