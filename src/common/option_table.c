/* option_table.c: the one table of options (option_table.h), sglang's names
 * first. A row names an option (sglang's ServerArgs name, its flag and
 * aliases, vLLM's and TensorRT-LLM's flag of that meaning), where its value
 * is kept, its bounds or words, its --help line, whether documents echo it:
 * the parser, --help, JSON requests, Python and the checks all read it. */
#include "common/option_table.h"

#include <string.h>

#define OPTS(f)                                                                \
    .region = KVPLAN__IN_OPTIONS, .offset = offsetof(kvplan_options, f)
#define PLAN(f)                                                                \
    .region = KVPLAN__IN_PLAN, .offset = offsetof(kvplan_plan_options, f)
#define SERVER(f)                                                              \
    .region = KVPLAN__IN_SERVER, .offset = offsetof(kvplan_server_args, f)
#define ENGINE(f)                                                              \
    .region = KVPLAN__IN_ENGINE, .offset = offsetof(kvplan_engine_options, f)

/* the value's type and bounds */
#define INTEGER_FROM(lo)                                                       \
    .type = KVPLAN_OPTION_INTEGER, .min = (lo), .max = 0x1p63, .words = -1
#define POSITIVE INTEGER_FROM(1), .expect = "a positive integer"
#define NON_NEGATIVE INTEGER_FROM(0), .expect = "a non-negative integer"
#define ANY_INTEGER INTEGER_FROM(-0x1p63), .expect = "an integer"
/* a question's count: its own words */
#define AT_LEAST_ONE INTEGER_FROM(1), .expect = "an integer >= 1"
#define SWITCH .type = KVPLAN_OPTION_SWITCH, .words = -1
#define WORDS(set) .type = KVPLAN_OPTION_WORD, .words = (set)
#define TEXT .type = KVPLAN_OPTION_TEXT, .words = -1
#define SIZE(u) .type = KVPLAN_OPTION_SIZE, .unit = (u), .words = -1
#define FRACTION(hi_open, what)                                                \
    .type = KVPLAN_OPTION_NUMBER, .min = 0, .max = 1, .min_open = true,        \
    .max_open = (hi_open), .words = -1, .expect = (what)

#define SGLANG .scope = KVPLAN_SCOPE_SGLANG, .echo = true
#define KVPLAN .scope = KVPLAN_SCOPE_KVPLAN, .echo = true
#define FOR_ENGINE .scope = KVPLAN_SCOPE_ENGINE, .echo = true
#define QUESTION .scope = KVPLAN_SCOPE_QUESTION

/* clang-format off */
const kvplan__option_row kvplan__option_rows[] = {
    /* ---- the model */
    {{.name = "model_path", .flag = "--model-path", .alias = "--model",
      .vllm = "--model", TEXT, SGLANG, .meta = "MODEL",
      .help = "a model directory, a config.json or a catalog name (kvplan "
              "--list-models); default llama-3.1-8b-instruct",
      .section = "model"},
     .store = KVPLAN__STORE_TEXT, OPTS(model_path), .readers = KVPLAN__READ_ALL},
    {{.name = "revision", .flag = "--revision", .vllm = "--revision", TEXT,
      SGLANG, .meta = "REV",
      .help = "the Hub revision of --model-path org/name: a branch, tag or "
              "commit; default main"},
     .store = KVPLAN__STORE_TEXT, OPTS(revision), .readers = KVPLAN__READ_ALL},
    {{.name = "json_model_override_args", .flag = "--json-model-override-args",
      .vllm = "--hf-overrides", TEXT, SGLANG, .meta = "JSON",
      .help = "a JSON object that updates config.json's top level"},
     .store = KVPLAN__STORE_TEXT, OPTS(model_override_args), .readers = KVPLAN__READ_ALL},
    /* ---- sglang's flags */
    {{.name = "tp_size", .flag = "--tp-size", .alias = "--tp",
      .alias2 = "--tensor-parallel-size", .vllm = "--tensor-parallel-size",
      .trtllm = "--tp_size", POSITIVE, SGLANG, .meta = "N",
      .help = "tensor parallel size; default 1",
      .section = "sglang flags (same names and meanings)", .sweep = true},
     .store = KVPLAN__STORE_INT, SERVER(tp_size), .readers = KVPLAN__READ_ALL},
    {{.name = "pp_size", .flag = "--pp-size", .alias = "--pp",
      .alias2 = "--pipeline-parallel-size", .vllm = "--pipeline-parallel-size",
      .trtllm = "--pp_size", POSITIVE, SGLANG, .meta = "N",
      .help = "pipeline parallel size; default 1", .sweep = true},
     .store = KVPLAN__STORE_INT, SERVER(pp_size), .readers = KVPLAN__READ_ALL},
    {{.name = "dp_size", .flag = "--dp-size", .alias = "--dp",
      .alias2 = "--data-parallel-size", .vllm = "--data-parallel-size",
      POSITIVE, SGLANG, .meta = "N", .help = "data parallel size; default 1"},
     .store = KVPLAN__STORE_INT, SERVER(dp_size)},
    {{.name = "ep_size", .flag = "--ep-size", .alias = "--ep",
      .alias2 = "--expert-parallel-size", .trtllm = "--ep_size", POSITIVE,
      SGLANG, .meta = "N",
      .help = "expert parallel size, divides --tp-size; default 1 (every "
              "rank still holds 1/tp of the experts)"},
     .store = KVPLAN__STORE_INT, PLAN(ep_size)},
    {{.name = "attn_cp_size", .flag = "--attn-cp-size",
      .alias2 = "--attention-context-parallel-size", POSITIVE, SGLANG,
      .meta = "N", .help = "attention context parallel size; default 1"},
     .store = KVPLAN__STORE_INT, SERVER(attn_cp_size)},
    {{.name = "dcp_size", .flag = "--dcp-size", POSITIVE, SGLANG, .meta = "N",
      .help = "decode context parallel size, divides --tp-size; default 1 "
              "(this sglang sizes the pools without it)"},
     .store = KVPLAN__STORE_INT, PLAN(dcp_size)},
    {{.name = "enable_dp_attention", .flag = "--enable-dp-attention", SWITCH,
      SGLANG, .help = "attention data parallel across the dp ranks"},
     .store = KVPLAN__STORE_BOOL, SERVER(enable_dp_attention)},
    {{.name = "nnodes", .flag = "--nnodes", .vllm = "--nnodes", .type = KVPLAN_OPTION_INTEGER, .min = 1, .max = 2147483647, .words = -1, .expect = "an integer from 1 to 2147483647", SGLANG,
      .meta = "N", .help = "the nodes the tp x pp ranks span; default 1 (the context grows with one node's ranks)"},
     .store = KVPLAN__STORE_INT32, SERVER(nnodes), .zero_is_auto = true},
    {{.name = "page_size", .flag = "--page-size", POSITIVE, SGLANG, .meta = "N",
      .help = "tokens per KV page; default sglang's for the GPU, model and "
              "backend",
      .sweep = true},
     .store = KVPLAN__STORE_INT, SERVER(page_size), .zero_is_auto = true, .peer = {NULL, "block_size", "tokens_per_block"}},
    {{.name = "kv_cache_dtype", .flag = "--kv-cache-dtype",
      .vllm = "--kv-cache-dtype", WORDS(KVPLAN_WORDS_KV_CACHE_DTYPE), SGLANG,
      .help = "the KV cache's element type; auto: the model's (fp8 where "
              "sglang says)",
      .sweep = true},
     .store = KVPLAN__STORE_WORD, SERVER(kv_cache_dtype), .readers = KVPLAN__READ_ALL},
    {{.name = "dtype", .flag = "--dtype", .vllm = "--dtype",
      WORDS(KVPLAN_WORDS_DTYPE), SGLANG,
      .help = "the model's dtype; auto: the config's"},
     .store = KVPLAN__STORE_WORD, SERVER(dtype), .readers = KVPLAN__READ_ALL},
    {{.name = "quantization", .flag = "--quantization",
      .vllm = "--quantization", WORDS(KVPLAN_WORDS_QUANTIZATION), SGLANG,
      .meta = "METHOD",
      .help = "the weights' quantization (fp8, awq, gptq, modelopt_fp4, "
              "...); default the config's quantization_config"},
     .store = KVPLAN__STORE_NAME, PLAN(quantization), .readers = KVPLAN__READ_SGLANG | KVPLAN__READ_VLLM},
    {{.name = "mem_fraction_static", .flag = "--mem-fraction-static",
      FRACTION(true, "a fraction in (0, 1)"), SGLANG, .meta = "F",
      .help = "the GPU memory fraction for weights and KV cache; default "
              "sglang's rule",
      .sweep = true},
     .store = KVPLAN__STORE_DOUBLE, PLAN(mem_fraction_static), .peer = {NULL, "gpu_memory_utilization", "free_gpu_memory_fraction"}},
    {{.name = "max_total_tokens", .flag = "--max-total-tokens", POSITIVE,
      SGLANG, .unit = "tokens", .meta = "N",
      .help = "a cap on the KV cache's tokens"},
     .store = KVPLAN__STORE_OPT_INT, PLAN(max_total_tokens), .peer = {NULL, NULL, "max_tokens"}},
    {{.name = "max_running_requests", .flag = "--max-running-requests", POSITIVE,
      SGLANG, .meta = "N",
      .help = "running requests per DP worker; default from the tokens"},
     .store = KVPLAN__STORE_OPT_INT, SERVER(max_running_requests), .peer = {NULL, "max_num_seqs", "max_num_seqs"}},
    {{.name = "context_length", .flag = "--context-length", POSITIVE, SGLANG,
      .unit = "tokens", .meta = "N",
      .help = "the served context length; default the model's",
      .sweep = true},
     .store = KVPLAN__STORE_OPT_INT, SERVER(context_length), .readers = KVPLAN__READ_ALL, .peer = {NULL, "max_model_len", "max_model_len"}},
    {{.name = "chunked_prefill_size", .flag = "--chunked-prefill-size",
      ANY_INTEGER, SGLANG, .unit = "tokens", .meta = "N",
      .help = "tokens per prefill chunk (-1: no chunking); default by GPU "
              "memory"},
     .store = KVPLAN__STORE_OPT_INT, SERVER(chunked_prefill_size), .peer = {NULL, "max_num_batched_tokens", "max_num_batched_tokens"}},
    {{.name = "max_prefill_tokens", .flag = "--max-prefill-tokens", POSITIVE,
      SGLANG, .unit = "tokens", .meta = "N",
      .help = "tokens of one prefill batch; default 16384"},
     .store = KVPLAN__STORE_OPT_INT, PLAN(max_prefill_tokens)},
    {{.name = "swa_full_tokens_ratio", .flag = "--swa-full-tokens-ratio",
      FRACTION(false, "a ratio in (0, 1]"), SGLANG, .meta = "R",
      .help = "sliding-window tokens per full token; default 0.8 (DeepSeek "
              "V4: 0.1)"},
     .store = KVPLAN__STORE_DOUBLE, SERVER(swa_full_tokens_ratio)},
    {{.name = "disable_radix_cache", .flag = "--disable-radix-cache", SWITCH,
      SGLANG,
      .help = "no prefix cache (hybrid SWA then may use the SWA chunk cap)"},
     .store = KVPLAN__STORE_BOOL, SERVER(disable_radix_cache)},
    {{.name = "disable_overlap_schedule", .flag = "--disable-overlap-schedule",
      SWITCH, SGLANG, .help = "no overlap scheduler"},
     .store = KVPLAN__STORE_BOOL, SERVER(disable_overlap_schedule)},
    {{.name = "disable_cuda_graph", .flag = "--disable-cuda-graph", SWITCH, SGLANG,
      .help = "no CUDA graphs (they are in the memory rule's reserve)"},
     .store = KVPLAN__STORE_BOOL, PLAN(disable_cuda_graph), .peer = {NULL, "enforce_eager", NULL}},
    {{.name = "cuda_graph_max_bs", .flag = "--cuda-graph-max-bs",
      .alias = "--cuda-graph-max-bs-decode", POSITIVE, SGLANG, .meta = "N",
      .help = "the largest decode CUDA graph batch; default by GPU memory"},
     .store = KVPLAN__STORE_OPT_INT, PLAN(cuda_graph_max_bs)},
    {{.name = "attention_backend", .flag = "--attention-backend",
      WORDS(KVPLAN_WORDS_ATTENTION_BACKEND), SGLANG, .meta = "NAME",
      .help = "one of sglang's backends (fa3, flashinfer, trtllm_mha, ...); "
              "default sglang's for the GPU and model"},
     .store = KVPLAN__STORE_NAME, PLAN(attention_backend)},
    {{.name = "speculative_algorithm", .flag = "--speculative-algorithm",
      WORDS(KVPLAN_WORDS_SPECULATIVE_ALGORITHM), SGLANG,
      .help = "speculative decoding (any case)", .sweep = true},
     .store = KVPLAN__STORE_WORD, SERVER(speculative_algorithm), .readers = KVPLAN__READ_ALL},
    {{.name = "speculative_num_steps", .flag = "--speculative-num-steps",
      POSITIVE, SGLANG, .meta = "N",
      .help = "draft steps; default sglang's for EAGLE"},
     .store = KVPLAN__STORE_OPT_INT, SERVER(speculative_num_steps)},
    {{.name = "speculative_eagle_topk", .flag = "--speculative-eagle-topk",
      POSITIVE, SGLANG, .meta = "N", .help = "draft branches per step"},
     .store = KVPLAN__STORE_OPT_INT, SERVER(speculative_eagle_topk)},
    {{.name = "speculative_num_draft_tokens",
      .flag = "--speculative-num-draft-tokens", POSITIVE, SGLANG, .meta = "N",
      .help = "draft tokens verified per step"},
     .store = KVPLAN__STORE_OPT_INT, SERVER(speculative_num_draft_tokens)},
    {{.name = "speculative_draft_model_path",
      .flag = "--speculative-draft-model-path",
      .alias2 = "--speculative-draft-model", TEXT, SGLANG, .meta = "MODEL",
      .help = "the draft model (a path or a catalog name)"},
     .store = KVPLAN__STORE_TEXT, OPTS(draft_model_path), .readers = KVPLAN__READ_ALL},
    {{.name = "disaggregation_mode", .flag = "--disaggregation-mode",
      WORDS(KVPLAN_WORDS_DISAGGREGATION_MODE), SGLANG,
      .help = "prefill-decode disaggregation"},
     .store = KVPLAN__STORE_WORD, SERVER(disaggregation_mode)},
    {{.name = "disaggregation_decode_extra_slots",
      .flag = "--disaggregation-decode-extra-slots", NON_NEGATIVE, SGLANG,
      .meta = "N",
      .help = "PD decode's request slots beyond max_running_requests"},
     .store = KVPLAN__STORE_OPT_INT,
     SERVER(disaggregation_decode_extra_slots)},
    {{.name = "disable_hybrid_swa_memory",
      .flag = "--disable-hybrid-swa-memory", SWITCH, SGLANG,
      .help = "one full-attention pool for a hybrid SWA model"},
     .store = KVPLAN__STORE_BOOL, SERVER(disable_hybrid_swa_memory)},
    {{.name = "enable_hisparse", .flag = "--enable-hisparse", SWITCH, SGLANG,
      .help = "HiSparse: part of DeepSeek V4's c4 pool on the host"},
     .store = KVPLAN__STORE_BOOL, SERVER(enable_hisparse)},
    {{.name = "hisparse_config", .flag = "--hisparse-config", TEXT, SGLANG,
      .min = 1, .max = 0x1p53, .meta = "JSON",
      .expect = "a JSON object such as {\"host_to_device_ratio\": 4}",
      .help = "{\"host_to_device_ratio\": R}, R >= 1; default 2"},
     .store = KVPLAN__STORE_HISPARSE, SERVER(hisparse_host_to_device_ratio),
     .echo_key = "hisparse_host_to_device_ratio"},
    {{.name = "enable_dsa_cache_layer_split",
      .flag = "--enable-dsa-cache-layer-split", SWITCH, SGLANG,
      .help = "split DSA's KV layers over the context-parallel ranks"},
     .store = KVPLAN__STORE_BOOL, SERVER(enable_dsa_cache_layer_split)},
    {{.name = "moe_a2a_backend", .flag = "--moe-a2a-backend",
      WORDS(KVPLAN_WORDS_MOE_A2A_BACKEND), SGLANG,
      .help = "MoE all-to-all backend; deepep adds 2048 MiB to the rule's "
              "reserve"},
     .store = KVPLAN__STORE_NAME, PLAN(moe_a2a_backend)},
    {{.name = "max_mamba_cache_size", .flag = "--max-mamba-cache-size",
      POSITIVE, SGLANG, .meta = "N",
      .help = "mamba state slots; default from --mamba-full-memory-ratio"},
     .store = KVPLAN__STORE_OPT_INT, PLAN(max_mamba_cache_size)},
    {{.name = "mamba_ssm_dtype", .flag = "--mamba-ssm-dtype",
      WORDS(KVPLAN_WORDS_MAMBA_SSM_DTYPE), SGLANG,
      .help = "the mamba ssm state's dtype; default SGLANG_MAMBA_SSM_DTYPE, "
              "else the config's, else float32"},
     .store = KVPLAN__STORE_NAME, PLAN(mamba_ssm_dtype), .peer = {NULL, "mamba_ssm_cache_dtype", NULL}},
    {{.name = "mamba_full_memory_ratio", .flag = "--mamba-full-memory-ratio",
      .type = KVPLAN_OPTION_NUMBER, .min = 0, .max = 1e6, .min_open = true,
      .max_open = true, .words = -1, .expect = "a positive ratio", SGLANG,
      .meta = "R",
      .help = "mamba state memory per KV cache memory; default 0.9"},
     .store = KVPLAN__STORE_DOUBLE, PLAN(mamba_full_memory_ratio)},
    /* ---- the budget: kvplan's own */
    {{.name = "gpu", .flag = "--gpu", TEXT, KVPLAN, .meta = "NAME",
      .expect = "a GPU preset (kvplan --list-gpus) or auto",
      .help = "a preset (kvplan --list-gpus), or auto: the local GPUs "
              "through the NVIDIA driver; default H100-80GB",
      .section = "budget", .sweep = true},
     .store = KVPLAN__STORE_GPU, PLAN(gpu)},
    {{.name = "gpu_memory_mib", .flag = "--gpu-memory", SIZE("MiB"), KVPLAN,
      .min = 1, .max = 0x1p40, .meta = "SIZE",
      .expect = "a positive size such as 80GiB or 81559MiB",
      .help = "total memory per GPU, with its unit: 81559MiB, 80GiB (GiB is "
              "2^30 bytes, GB 10^9; sglang's logs say GB for GiB)"},
     .store = KVPLAN__STORE_GPU_MEMORY, OPTS(gpu_memory_mib)},
    {{.name = "available_bytes", .flag = "--available-bytes", SIZE("bytes"),
      KVPLAN, .min = 1, .max = 0x1p63, .meta = "SIZE",
      .expect = "a positive size such as 60GiB, or a number of bytes",
      .help = "skip the budget: the bytes sglang's log shows for the KV "
              "cache (_profile_available_bytes)"},
     .store = KVPLAN__STORE_BYTES, PLAN(available_bytes), .readers = KVPLAN__READ_SGLANG, .peer = {NULL, "kv_cache_memory", NULL}},
    {{.name = "weight_bytes", .flag = "--weight-bytes", SIZE("bytes"), KVPLAN,
      .min = 1, .max = 0x1p63, .meta = "SIZE",
      .expect = "a positive size such as 16GB, or a number of bytes",
      .help = "the whole model's weights in bytes (all ranks together, not "
              "one GPU's mem usage); default a model directory's "
              "safetensors, else an estimate from config.json"},
     .store = KVPLAN__STORE_BYTES, PLAN(weight_bytes)},
    {{.name = "calibration", .flag = "--calibration", TEXT, KVPLAN,
      .meta = "FILE",
      .help = "plan with what a log measured on this GPU (kvplan log "
              "--calibrate FILE): sglang's CUDA context and one rank's "
              "weights, or vLLM's and TensorRT-LLM's weights, activation "
              "and non-torch memory"},
     .store = KVPLAN__STORE_TEXT, OPTS(calibration), .readers = KVPLAN__READ_SGLANG | KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM},
    /* ---- versions */
    {{.name = "sglang_version", .flag = "--sglang-version", TEXT, KVPLAN,
      .meta = "V",
      .help = "the sglang whose rules to follow: seed (default: commit "
              "6cc9352d, the golden vectors), main, 0.5.16, or a release "
              "such as 0.5.9 (docs/versions.md)",
      .section = "version"},
     .store = KVPLAN__STORE_VERSION, PLAN(sglang_version), .readers = KVPLAN__READ_SGLANG},
    {{.name = "compare_version", .flag = "--compare-version", TEXT, KVPLAN,
      .meta = "V",
      .help = "also plan under sglang V (--engine's V under another engine), "
              "and show each rule that differs and what it changes"},
     .store = KVPLAN__STORE_VERSION, OPTS(compare_version), .readers = KVPLAN__READ_SGLANG | KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM},
    /* ---- other engines */
    {{.name = "engine", .flag = "--engine", TEXT, KVPLAN, .meta = "NAME",
      .expect = "one of sglang, vllm, trtllm",
      .help = "sglang (default), vllm or trtllm: what that engine would "
              "allocate for the same model and GPU, with its own flags "
              "below (docs/engines.md)",
      .section = "other engines"},
     .store = KVPLAN__STORE_ENGINE, OPTS(engine)},
    {{.name = "gpu_memory_utilization", .flag = "--gpu-memory-utilization",
      .vllm = "--gpu-memory-utilization",
      FRACTION(false, "a fraction in (0, 1]"), FOR_ENGINE, .meta = "F",
      .help = "vLLM: the share of the GPU it may use; default 0.92"},
     .store = KVPLAN__STORE_DOUBLE, ENGINE(gpu_memory_utilization), .readers = KVPLAN__READ_VLLM, .peer = {"mem_fraction_static", NULL, "free_gpu_memory_fraction"}},
    {{.name = "kv_cache_memory", .flag = "--kv-cache-memory",
      .alias2 = "--kv-cache-memory-bytes", .vllm = "--kv-cache-memory-bytes",
      SIZE("bytes"), FOR_ENGINE, .min = 0, .max = 0x1p63,
      .meta = "SIZE",
      .expect = "a size such as 8GiB, or a number of bytes",
      .help = "vLLM: the KV cache's bytes (8GiB, 8589934592), instead of "
              "the utilization's budget"},
     .store = KVPLAN__STORE_BYTES, ENGINE(kv_cache_memory_bytes), .readers = KVPLAN__READ_VLLM, .peer = {"available_bytes", NULL, NULL}},
    {{.name = "max_model_len", .flag = "--max-model-len",
      .alias2 = "--max-seq-len", .vllm = "--max-model-len",
      .trtllm = "--max_seq_len", POSITIVE, FOR_ENGINE, .unit = "tokens",
      .meta = "N",
      .help = "vLLM, TRT-LLM: the longest request; default the model's; "
              "vLLM's auto (or -1): the longest the cache holds"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(max_model_len), .zero_is_auto = true, .peer = {"context_length", NULL, NULL}},
    {{.name = "block_size", .flag = "--block-size", .vllm = "--block-size",
      POSITIVE, FOR_ENGINE, .unit = "tokens", .meta = "N",
      .help = "vLLM: tokens per block; default 16 (MLA: 64 on Hopper "
              "and Blackwell, 128 with CUTLASS MLA)"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(block_size), .readers = KVPLAN__READ_VLLM, .peer = {"page_size", NULL, "tokens_per_block"}},
    {{.name = "max_num_seqs", .flag = "--max-num-seqs",
      .alias2 = "--max-batch-size", .vllm = "--max-num-seqs",
      .trtllm = "--max_batch_size", POSITIVE, FOR_ENGINE, .meta = "N",
      .help = "vLLM: requests at once; default 1024 (256 below 70 GiB or "
              "on A100); TRT-LLM's max_batch_size, default 2048"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(max_num_seqs), .peer = {"max_running_requests", NULL, NULL}},
    {{.name = "max_num_batched_tokens", .flag = "--max-num-batched-tokens",
      .alias2 = "--max-num-tokens", .vllm = "--max-num-batched-tokens",
      .trtllm = "--max_num_tokens", POSITIVE, FOR_ENGINE, .unit = "tokens",
      .meta = "N",
      .help = "vLLM: tokens per step; default 8192 (2048 below 70 GiB or "
              "on A100); TRT-LLM's max_num_tokens, default 8192"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(max_num_batched_tokens), .peer = {"chunked_prefill_size", NULL, NULL}},
    {{.name = "enforce_eager", .flag = "--enforce-eager",
      .vllm = "--enforce-eager", SWITCH, FOR_ENGINE,
      .help = "vLLM, TRT-LLM: no CUDA graphs"},
     .store = KVPLAN__STORE_BOOL, ENGINE(enforce_eager), .readers = KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM, .peer = {"disable_cuda_graph", NULL, NULL}},
    {{.name = "vllm_version", .flag = "--vllm-version", TEXT, FOR_ENGINE,
      .meta = "V",
      .help = "vLLM: the release whose rules to follow: latest (default, "
              "0.29-0.31), 0.28, 0.26-0.27, 0.23-0.25, 0.20-0.22, 0.13-0.19, "
              "0.10-0.12, or a "
              "release such as 0.10.2 (docs/engines.md)"},
     .store = KVPLAN__STORE_VLLM_VERSION, ENGINE(vllm_version), .readers = KVPLAN__READ_VLLM, .peer = {"sglang_version", NULL, "trtllm_version"}},
    {{.name = "num_gpu_blocks_override", .flag = "--num-gpu-blocks-override",
      .vllm = "--num-gpu-blocks-override", POSITIVE, FOR_ENGINE, .meta = "N",
      .help = "vLLM: the KV cache's blocks, instead of the budget's"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(num_gpu_blocks_override), .readers = KVPLAN__READ_VLLM, .peer = {"max_total_tokens", NULL, "max_tokens"}},
    {{.name = "mamba_cache_mode", .flag = "--mamba-cache-mode",
      .vllm = "--mamba-cache-mode", WORDS(KVPLAN_WORDS_MAMBA_CACHE_MODE),
      FOR_ENGINE, .meta = "MODE", .expect = "one of none, align, all",
      .help = "vLLM: a mamba layer's states a request holds: none (one), "
              "align (two), all (one a block); default align from 0.28 "
              "with prefix caching, else none"},
     .store = KVPLAN__STORE_WORD, ENGINE(mamba_cache_mode), .readers = KVPLAN__READ_VLLM},
    {{.name = "mamba_ssm_cache_dtype", .flag = "--mamba-ssm-cache-dtype",
      .vllm = "--mamba-ssm-cache-dtype",
      WORDS(KVPLAN_WORDS_MAMBA_SSM_CACHE_DTYPE), FOR_ENGINE, .meta = "DTYPE",
      .expect = "one of auto, float32, float16, bfloat16",
      .help = "vLLM, TRT-LLM: a mamba layer's ssm state; default auto "
              "(vLLM: Nemotron-H's config's, else float32; TRT-LLM: the "
              "config's, else the model dtype)"},
     .store = KVPLAN__STORE_NAME, ENGINE(mamba_ssm_cache_dtype), .readers = KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM, .peer = {"mamba_ssm_dtype", NULL, NULL}},
    {{.name = "vllm_attention_backend", .flag = "--vllm-attention-backend",
      .vllm = "--attention-backend", TEXT, FOR_ENGINE, .meta = "NAME",
      .help = "vLLM: its --attention-backend (FLASHMLA, CUTLASS_MLA, "
              "FLASHINFER_MLA, FLASH_ATTN, ...); an MLA backend forces its "
              "block size"},
     .store = KVPLAN__STORE_TEXT, ENGINE(vllm_attention_backend), .readers = KVPLAN__READ_VLLM},
    {{.name = "disable_hybrid_kv_cache_manager",
      .flag = "--disable-hybrid-kv-cache-manager",
      .vllm = "--disable-hybrid-kv-cache-manager", SWITCH, FOR_ENGINE,
      .help = "vLLM: sliding-window layers keep a full layer's cache (one "
              "KV-cache group)"},
     .store = KVPLAN__STORE_BOOL, ENGINE(disable_hybrid_kv_cache_manager), .readers = KVPLAN__READ_VLLM},
    {{.name = "no_enable_prefix_caching", .flag = "--no-enable-prefix-caching",
      .vllm = "--no-enable-prefix-caching", SWITCH, FOR_ENGINE,
      .help = "vLLM: no prefix caching (a mamba hybrid's mode is then "
              "none); TRT-LLM: enable_block_reuse false"},
     .store = KVPLAN__STORE_BOOL, ENGINE(no_prefix_caching), .readers = KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM, .peer = {"disable_radix_cache", NULL, NULL}},
    {{.name = "free_gpu_memory_fraction", .flag = "--free-gpu-memory-fraction",
      .trtllm = "--kv_cache_free_gpu_memory_fraction",
      FRACTION(false, "a fraction in (0, 1]"), FOR_ENGINE, .meta = "F",
      .help = "TRT-LLM: the share of the free memory for the KV cache; "
              "default 0.9"},
     .store = KVPLAN__STORE_DOUBLE, ENGINE(free_gpu_memory_fraction), .readers = KVPLAN__READ_TRTLLM, .peer = {"mem_fraction_static", "gpu_memory_utilization", NULL}},
    {{.name = "max_attention_window", .flag = "--max-attention-window",
      TEXT, FOR_ENGINE, .meta = "W[,W...]",
      .help = "TRT-LLM: each layer's attention window, a pattern repeated "
              "over the layers; two or more windows split the KV memory "
              "by window (VSWA)"},
     .store = KVPLAN__STORE_TEXT, ENGINE(max_attention_window), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "max_gpu_total_bytes", .flag = "--max-gpu-total-bytes",
      SIZE("bytes"), FOR_ENGINE, .min = 0, .max = 0x1p63, .meta = "SIZE",
      .expect = "a size such as 8GiB, or a number of bytes",
      .help = "TRT-LLM: the most GPU memory for the KV cache; 0: none"},
     .store = KVPLAN__STORE_BYTES, ENGINE(max_gpu_total_bytes), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "host_cache_size", .flag = "--host-cache-size", SIZE("bytes"),
      FOR_ENGINE, .min = 0, .max = 0x1p63, .meta = "SIZE",
      .expect = "a size such as 64GiB, or a number of bytes",
      .help = "TRT-LLM: the host memory for offloaded KV blocks (the "
              "secondary pool)"},
     .store = KVPLAN__STORE_BYTES, ENGINE(host_cache_size), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "mamba_state_cache_interval",
      .flag = "--mamba-state-cache-interval", POSITIVE, FOR_ENGINE,
      .unit = "tokens", .meta = "N",
      .help = "TRT-LLM: a mamba hybrid's state snapshot every N tokens "
              "under block reuse; default 256 under V1, none under V2"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(mamba_state_cache_interval), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "separate_draft_kv_cache", .flag = "--separate-draft-kv-cache",
      SWITCH, FOR_ENGINE,
      .help = "TRT-LLM: an EAGLE head's layers in a KV cache of their own, "
              "the budget split by the two caches' bytes a token"},
     .store = KVPLAN__STORE_BOOL, ENGINE(separate_draft_kv_cache), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "no_async_scheduling", .flag = "--no-async-scheduling",
      .vllm = "--no-async-scheduling", SWITCH, FOR_ENGINE,
      .help = "vLLM: one batch in flight, not two; from 0.26 a sliding "
              "window reserves one max_num_batched_tokens, not two"},
     .store = KVPLAN__STORE_BOOL, ENGINE(no_async_scheduling), .readers = KVPLAN__READ_VLLM},
    {{.name = "fp4_indexer_cache", .flag = "--fp4-indexer-cache", SWITCH,
      FOR_ENGINE,
      .help = "vLLM: DeepSeek-V4's indexer keys in MXFP4 (vLLM's "
              "--attention-config.use_fp4_indexer_cache=True)"},
     .store = KVPLAN__STORE_BOOL, ENGINE(fp4_indexer_cache), .readers = KVPLAN__READ_VLLM},
    {{.name = "trtllm_version", .flag = "--trtllm-version", TEXT, FOR_ENGINE, .meta = "V",
      .help = "TRT-LLM: the release whose rules to follow: latest (default, 1.3.0rc28-1.4), "
              "1.3.0rc21-rc27, 1.0-1.3.0rc20, or a release such as 1.3.0rc24 (docs/engines.md)"},
     .store = KVPLAN__STORE_TRTLLM_VERSION, ENGINE(trtllm_version), .readers = KVPLAN__READ_TRTLLM, .peer = {"sglang_version", "vllm_version", NULL}},
    {{.name = "use_kv_cache_manager_v2", .flag = "--use-kv-cache-manager-v2",
      SWITCH, FOR_ENGINE, .help = "TRT-LLM: plan KV cache manager V2's pools, not V1's (Gemma 4 "
      "always has V2); neither this nor the next: the release's default for the model"},
     .store = KVPLAN__STORE_BOOL, ENGINE(use_kv_cache_manager_v2), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "no_use_kv_cache_manager_v2", .flag = "--no-use-kv-cache-manager-v2", SWITCH,
      FOR_ENGINE, .help = "TRT-LLM: use_kv_cache_manager_v2: false: plan V1's pools, whatever the model's default"},
     .store = KVPLAN__STORE_BOOL, ENGINE(no_use_kv_cache_manager_v2), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "max_util_for_resume", .flag = "--max-util-for-resume",
      FRACTION(false, "a fraction in (0, 1]"), FOR_ENGINE, .meta = "F",
      .help = "TRT-LLM V2: a --max-tokens allows its bytes over F; default 0.95"},
     .store = KVPLAN__STORE_DOUBLE, ENGINE(max_util_for_resume), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "avg_seq_len", .flag = "--avg-seq-len", POSITIVE, FOR_ENGINE,
      .unit = "tokens", .meta = "N", .help = "TRT-LLM V2: the workload's "
      "average total length, the typical step of the pools' first split"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(avg_seq_len), .readers = KVPLAN__READ_TRTLLM},
    {{.name = "max_tokens", .flag = "--max-tokens", POSITIVE, FOR_ENGINE,
      .unit = "tokens", .meta = "N",
      .help = "TRT-LLM: the KV cache's most tokens"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(max_tokens), .readers = KVPLAN__READ_TRTLLM, .peer = {"max_total_tokens", NULL, NULL}},
    {{.name = "tokens_per_block", .flag = "--tokens-per-block", POSITIVE,
      FOR_ENGINE, .unit = "tokens", .meta = "N",
      .help = "TRT-LLM: tokens per block; default 32 (DeepSeek-V4: 128)"},
     .store = KVPLAN__STORE_OPT_INT, ENGINE(tokens_per_block), .readers = KVPLAN__READ_TRTLLM, .peer = {"page_size", "block_size", NULL}},
    {{.name = "activation_memory", .flag = "--activation-memory",
      SIZE("bytes"), FOR_ENGINE, .min = 0, .max = 0x1p63,
      .meta = "SIZE",
      .expect = "a size such as 8GiB, or a number of bytes",
      .help = "vLLM, TRT-LLM: the profile run's peak, as a log measured it; "
              "default an estimate"},
     .store = KVPLAN__STORE_BYTES, ENGINE(activation_bytes)},
    {{.name = "non_torch_memory", .flag = "--non-torch-memory", SIZE("bytes"),
      FOR_ENGINE, .min = 0, .max = 0x1p63, .meta = "SIZE",
      .expect = "a size such as 8GiB, or a number of bytes",
      .help = "vLLM, TRT-LLM: NCCL and cuBLAS memory; default an estimate"},
     .store = KVPLAN__STORE_BYTES, ENGINE(non_torch_bytes)},
    {{.name = "cuda_graph_memory", .flag = "--cuda-graph-memory",
      SIZE("bytes"), FOR_ENGINE, .min = 0, .max = 0x1p63, .meta = "SIZE",
      .expect = "a size such as 8GiB, or a number of bytes",
      .help = "vLLM, TRT-LLM: the CUDA graphs' memory; default an estimate"},
     .store = KVPLAN__STORE_BYTES, ENGINE(cuda_graph_bytes), .readers = KVPLAN__READ_VLLM | KVPLAN__READ_TRTLLM},
    /* ---- what the answer holds */
    {{.name = "explain", .flag = "--explain", SWITCH,
      .scope = KVPLAN_SCOPE_OUTPUT,
      .help = "every term of the bytes per token and of the budget"},
     .store = KVPLAN__STORE_BOOL, OPTS(explain), .readers = KVPLAN__READ_SGLANG},
    /* ---- the questions' own */
    {{.name = "concurrency", .flag = "--concurrency", AT_LEAST_ONE, QUESTION,
      .question = "fit", .meta = "N",
      .help = "kvplan fit: the longest context at which N requests run at "
              "once"},
     .store = KVPLAN__STORE_OPT_INT, OPTS(concurrency)},
    {{.name = "target_tokens", .flag = "--target-tokens", AT_LEAST_ONE, QUESTION,
      .question = "solve", .unit = "tokens", .meta = "T",
      .help = "kvplan solve: reach max_total_num_tokens >= T"},
     .store = KVPLAN__STORE_OPT_INT, OPTS(target_tokens)},
    {{.name = "target_concurrency", .flag = "--target-concurrency", AT_LEAST_ONE,
      QUESTION, .question = "solve", .meta = "N",
      .help = "kvplan solve: reach N requests of context_len at once"},
     .store = KVPLAN__STORE_OPT_INT, OPTS(target_concurrency)},
    {{.name = "solve_for", .flag = "--solve-for", TEXT, QUESTION,
      .question = "solve",
      .meta = "KNOB",
      .expect = "mem-fraction-static, tp-size, gpu, max-running-requests, "
                "swa-full-tokens-ratio or kv-cache-dtype",
      .help = "kvplan solve: the knob to turn; default mem-fraction-static"},
     .store = KVPLAN__STORE_KNOB, OPTS(solve_for)},
    {{.name = "rank_by", .flag = "--rank-by", TEXT, QUESTION,
      .question = "sweep", .meta = "KEY",
      .expect = "concurrency-per-gpu, concurrency, tokens, tokens-per-gpu, "
                "longest-request or gpus",
      .help = "kvplan sweep: what ranks the rows, best first; default "
              "concurrency-per-gpu"},
     .store = KVPLAN__STORE_RANK_KEY, OPTS(rank_by)},
};
/* clang-format on */

const size_t kvplan__num_option_rows =
    sizeof kvplan__option_rows / sizeof kvplan__option_rows[0];
/* kvplan_options' record of the rows given holds 128 */
_Static_assert(sizeof kvplan__option_rows / sizeof kvplan__option_rows[0] <=
                   64 * sizeof((struct kvplan__options_internal){0}.given) /
                       sizeof(uint64_t),
               "kvplan__options_internal.given is too small for the rows");

/* ---- checks of stored values ------------------------------------------ */

/* Whether a row's value needs kvplan__option_check_row, which says why it is
 * refused: a number out of its bounds, a word or a name given (read by a call).
 * Most were not given, a switch or a text is never refused here; known
 * inline, and with the walk below unrolled, against constant bounds. */
static inline bool to_check(const kvplan__option_row *row, const char *field)
{
    const void *f = field;
    int w;
    switch (row->store) {
    case KVPLAN__STORE_OPT_INT:
    case KVPLAN__STORE_BYTES: {
        const kvplan_opt_int *v = f;
        return v->set && !(row->zero_is_auto && v->value == 0) &&
               !kvplan__option_in_bounds(&row->pub, (double)v->value);
    }
    case KVPLAN__STORE_INT:
    case KVPLAN__STORE_INT32: {
        int64_t v = row->store == KVPLAN__STORE_INT ? *(const int64_t *)f
                                                    : *(const int32_t *)f;
        return !(row->zero_is_auto && v == 0) &&
               !kvplan__option_in_bounds(&row->pub, (double)v);
    }
    case KVPLAN__STORE_DOUBLE: {
        const kvplan_opt_double *v = f;
        return v->set && !kvplan__option_in_bounds(&row->pub, v->value);
    }
    case KVPLAN__STORE_WORD:
        memcpy(&w, field, sizeof w);
        return w != 0;
    case KVPLAN__STORE_NAME:
        return *(const char *const *)f != NULL;
    case KVPLAN__STORE_HISPARSE:
        return true;
    default:
        return false; /* checked where they are read */
    }
}

kvplan_status kvplan__options_check(const void *plan, const void *server,
                                    const void *engine, kvplan_error *err)
{
    const char *bases[KVPLAN__IN_ENGINE + 1] = {
        [KVPLAN__IN_PLAN] = plan,
        [KVPLAN__IN_SERVER] = server,
        [KVPLAN__IN_ENGINE] = engine,
    };
    /* unrolled, each row's region and store are constants: the rows of
     * other regions, and those never refused here, leave no code */
#pragma GCC unroll 256
    for (size_t i = 0;
         i < sizeof kvplan__option_rows / sizeof *kvplan__option_rows; i++) {
        const kvplan__option_row *row = &kvplan__option_rows[i];
        const char *base = bases[row->region];
        if (base == NULL || !to_check(row, base + row->offset))
            continue;
        KVPLAN__TRY(
            kvplan__option_check_row(row, base, base + row->offset, err));
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__options_check_region(kvplan__region region,
                                           const void *base, kvplan_error *err)
{
    return kvplan__options_check(region == KVPLAN__IN_PLAN ? base : NULL,
                                 region == KVPLAN__IN_SERVER ? base : NULL,
                                 region == KVPLAN__IN_ENGINE ? base : NULL,
                                 err);
}

static inline kvplan_status check_field(kvplan__region region, size_t offset,
                                        const void *base, kvplan_error *err)
{
#pragma GCC unroll 256
    for (size_t i = 0;
         i < sizeof kvplan__option_rows / sizeof *kvplan__option_rows; i++) {
        const kvplan__option_row *row = &kvplan__option_rows[i];
        if (row->region == region && row->offset == offset)
            return to_check(row, (const char *)base + offset)
                       ? kvplan__option_check_row(
                             row, base, (const char *)base + offset, err)
                       : KVPLAN_OK;
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__options_check_fraction(const kvplan_plan_options *o,
                                             kvplan_error *err)
{
    /* the region and offset constant, the walk above folds to the row */
    return check_field(KVPLAN__IN_PLAN,
                       offsetof(kvplan_plan_options, mem_fraction_static), o,
                       err);
}
