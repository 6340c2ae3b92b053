/*
 * plan.c: the smallest use of the installed kvplan library.
 *
 * Describes one rank of Llama-3.1-8B-Instruct (32 layers, 8 KV heads of
 * dim 128, bf16 KV cache, tensor parallel 2), asks sglang's configurator
 * how many tokens 40 GB of free GPU memory hold, and prints the answer.
 *
 *   cc plan.c $(pkg-config --cflags --libs kvplan) -o plan && ./plan
 */
#include <kvplan.h>

#include <stdio.h>

int main(void)
{
    kvplan_rank rank;
    kvplan_rank_init(&rank); /* sglang's defaults for everything else */
    rank.runner.kv_cache_dtype = KVPLAN_DTYPE_BFLOAT16;
    rank.runner.start_layer = 0;
    rank.runner.end_layer = 32;
    rank.runner.num_effective_layers = 32;
    rank.runner.page_size = 16;
    rank.parallel.attn_tp_size = 2;
    rank.model.num_key_value_heads = 8;
    rank.model.head_dim = (kvplan_opt_int){128, true};

    kvplan_configurator conf;
    kvplan_pool_config pools;
    kvplan_error err;
    if (kvplan_configurator_init(&conf, &rank, &err) != KVPLAN_OK ||
        kvplan_calculate_pool_sizes(&conf, 40000000000, rank.runner.page_size,
                                    &pools, &err) != KVPLAN_OK) {
        fprintf(stderr, "kvplan: %s (%s)\n", err.message,
                kvplan_status_name(err.code));
        return 1;
    }
    printf("%s: %lld bytes per token, %lld tokens\n",
           kvplan_configurator_name(conf.kind), (long long)conf.cell_size_bytes,
           (long long)pools.max_total_num_tokens);
    return 0;
}
