/*
 * k8s.h: Kubernetes manifests as `kvplan check` reads them (k8s.c): every
 * container of every workload that starts sglang, vLLM or TensorRT-LLM,
 * with the GPUs its pod asks for, the GPU model its scheduling names, the
 * environment it sets literally, and what was not read. The engines' own
 * rules are not here: cmd_check.c plans each launch as a pasted command.
 */
#ifndef KVPLAN_K8S_H
#define KVPLAN_K8S_H

#include "kvplan.h"

#define CLI_K8S_MAX_WORDS 400
#define CLI_K8S_MAX_NOTES 8
#define CLI_K8S_MAX_LAUNCHES 256

/* One container that starts a server. */
typedef struct cli_k8s_launch {
    char kind[48];       /* "Deployment", "LeaderWorkerSet", ... */
    char name[128];      /* metadata.name */
    char ns[64];         /* metadata.namespace; "" when not given */
    char container[64];  /* the container's name */
    const char *role;    /* "" or, in a LeaderWorkerSet, "leader" */
    int64_t pods;        /* pods one replica spans (LeaderWorkerSet size) */
    int64_t gpus;        /* per pod, resources.limits; -1: none asked */
    const char *gpu_key; /* "nvidia.com/gpu", "amd.com/gpu" */
    int64_t visible;     /* CUDA_VISIBLE_DEVICES' count; -1: not set */
    char gpu[32];        /* a preset name; "" when nothing says */
    char gpu_from[200];  /* where it was read */
    char gpu_seen[200];  /* a GPU label seen and not known */
    char model[256];     /* the annotation kvplan.dev/model */
    char image[160];
    /* NAME=VALUE for the engine's variables, then the command from the
     * word that starts the server */
    int argc;
    char *argv[CLI_K8S_MAX_WORDS];
    size_t num_notes;
    char notes[CLI_K8S_MAX_NOTES][240];
    /* Why the command was not read whole (past a limit): then the launch
     * is not planned, and this says why; "" when it was. */
    char unread[200];
    char *text; /* owns the words */
} cli_k8s_launch;

typedef struct cli_k8s {
    size_t n;
    cli_k8s_launch *launches;
    size_t workloads;  /* the workloads read, of any container */
    size_t containers; /* their containers */
    size_t documents;
} cli_k8s;

/* Reads every YAML document of `text` (JSON too): the workloads of the
 * kinds k8s.c lists, and a List's items. KVPLAN_PARSE with the line and
 * column of a YAML error; KVPLAN_INVALID_ARGUMENT past the limits
 * (CLI_K8S_MAX_LAUNCHES). Free with cli_k8s_free. */
kvplan_status cli_k8s_read(const char *text, size_t len, cli_k8s *out,
                           kvplan_error *err);
void cli_k8s_free(cli_k8s *k);

/* The preset a node label's value names ("NVIDIA-H100-80GB-HBM3",
 * "nvidia-tesla-a100", "p5.48xlarge"), or NULL. */
const char *cli_k8s_gpu_of(const char *value);
/* A node label's key that names a GPU: GFD's product, GKE's accelerator,
 * the clouds' instance types, Karpenter's GPU name, AMD's product. */
bool cli_k8s_gpu_key(const char *key);
/* A MIG slice's label ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"). */
bool cli_k8s_is_mig(const char *value);

#endif /* KVPLAN_K8S_H */
