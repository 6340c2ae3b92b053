/*
 * test_golden.c: replays the reference's answers (golden vectors).
 *
 *   test_golden FILE                 parse each scenario, run it through
 *                                    the library, compare every call
 *   test_golden --compare WANT GOT   compare two files of answered
 *                                    scenarios line by line (kvplan pools
 *                                    output against the oracle's)
 *
 * Prints one line per differing scenario (the first 20) and then
 * "N passed, N failed", counting calls. The replay also checks that the
 * prepared scenarios' writer (kvplan_scenarios_run) writes each scenario's
 * results byte for byte as the document writer does. Exits non-zero on any
 * failure, or when no call was checked at all.
 */
#include "json/doc.h"
#include "json/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t passed, failed, shown;

/* ---- comparing answers ------------------------------------------------- */

static const char *const answer_keys[] = {
    "configurator",
    "max_total_num_tokens",
    "full_max_total_num_tokens",
    "swa_max_total_num_tokens",
    "c4_max_total_num_tokens",
    "c128_max_total_num_tokens",
    "c4_state_pool_size",
    "c128_state_pool_size",
    "max_running_requests",
    "cell_size",
    "bytes_per_full_token",
    "swa_cap",
};

static bool same_value(const json_t *a, const json_t *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return json_equal((json_t *)a, (json_t *)b) != 0;
}

static void describe(char *why, size_t size, size_t call, const char *key,
                     const json_t *want, const json_t *got)
{
    char *w = want ? json_dumps(want, JSON_ENCODE_ANY) : NULL;
    char *g = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL;
    snprintf(why, size, "call %zu: %s: expected %s, got %s", call, key,
             w ? w : "(absent)", g ? g : "(absent)");
    free(w);
    free(g);
}

static bool compare_one(const json_t *want, const json_t *got, size_t call,
                        char *why, size_t size)
{
    if (!json_is_object(want) || !json_is_object(got)) {
        describe(why, size, call, "result", want, got);
        return false;
    }
    const char *const *keys = answer_keys;
    size_t nkeys = sizeof answer_keys / sizeof answer_keys[0];
    static const char *const error_keys[] = {"skipped", "error", "configurator",
                                             "stage"};
    if (json_object_get(want, "error") || json_object_get(want, "skipped") ||
        json_object_get(got, "error") || json_object_get(got, "skipped")) {
        keys = error_keys;
        nkeys = sizeof error_keys / sizeof error_keys[0];
    }
    for (size_t k = 0; k < nkeys; k++) {
        const json_t *a = json_object_get(want, keys[k]);
        const json_t *b = json_object_get(got, keys[k]);
        if (!same_value(a, b)) {
            describe(why, size, call, keys[k], a, b);
            return false;
        }
    }
    return true;
}

static size_t results_compare(const json_t *expected, const json_t *actual,
                              char *why, size_t why_size)
{
    size_t n = json_array_size(expected);
    size_t m = json_array_size(actual);
    size_t bad = 0;
    if (why_size > 0)
        why[0] = '\0';
    for (size_t i = 0; i < n || i < m; i++) {
        if (i >= n || i >= m) {
            if (bad++ == 0)
                snprintf(why, why_size, "expected %zu results, got %zu", n, m);
            continue;
        }
        char one[512];
        if (!compare_one(json_array_get(expected, i), json_array_get(actual, i),
                         i, one, sizeof one)) {
            if (bad++ == 0)
                snprintf(why, why_size, "%s", one);
        }
    }
    return bad;
}

static void tally(const json_t *scenario, size_t calls, size_t bad,
                  const char *why)
{
    passed += calls - (bad < calls ? bad : calls);
    failed += bad;
    if (bad > 0 && shown++ < 20) {
        const char *name = json_string_value(json_object_get(scenario, "name"));
        fprintf(stderr, "FAIL %s: %s\n", name ? name : "(unnamed)", why);
    }
}

static json_t *load_line(const char *line, size_t len, size_t lineno,
                         const char *path)
{
    json_error_t jerr;
    json_t *v = json_loadb(line, len, 0, &jerr);
    if (v == NULL)
        fprintf(stderr, "%s:%zu:%d: %s\n", path, lineno, jerr.column,
                jerr.text);
    return v;
}

/* The replay's results as the library writes them (`text`, the caller
 * frees it), read back. */
static json_t *run_results(const kvplan__scenario *s, char **text)
{
    kvplan__writer w = {0};
    kvplan__scenario_results(&w, NULL, s);
    *text = kvplan__w_take(&w, NULL);
    return *text != NULL ? json_loads(*text, 0, NULL) : NULL;
}

/* The text is the reference's, byte for byte: what json.dumps writes for
 * the golden results (their reals in repr() form included). An error's
 * words are kvplan's (results_compare reads its kind), so results with
 * one are not compared as text. */
static bool same_text(const json_t *want, const char *text)
{
    for (size_t i = 0; i < json_array_size(want); i++)
        if (json_object_get(json_array_get(want, i), "error") != NULL)
            return true;
    char *ref = kvplan__dump(want, NULL);
    bool ok = ref != NULL && text != NULL && strcmp(ref, text) == 0;
    free(ref);
    return ok;
}

static int replay(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        json_t *sc = load_line(line, (size_t)len, lineno, path);
        if (sc == NULL) {
            failed++;
            continue;
        }
        const json_t *want = json_object_get(sc, "results");
        size_t calls = json_array_size(want);
        kvplan__scenario s;
        kvplan_error err;
        if (kvplan__scenario_parse(sc, &s, &err) != KVPLAN_OK) {
            char why[600];
            snprintf(why, sizeof why, "cannot read the scenario: %s",
                     err.message);
            tally(sc, calls, calls > 0 ? calls : 1, why);
            json_decref(sc);
            continue;
        }
        char *text = NULL;
        json_t *got = run_results(&s, &text);
        char why[600];
        size_t bad = results_compare(want, got, why, sizeof why);
        if (bad == 0 && !same_text(want, text)) {
            snprintf(why, sizeof why,
                     "the results' text differs from the reference's");
            bad = 1;
        }
        tally(sc, calls, bad, why);
        free(text);
        json_decref(got);
        kvplan__scenario_free(&s);
        json_decref(sc);
    }
    free(line);
    fclose(f);
    return 0;
}

static int compare_files(const char *want_path, const char *got_path)
{
    FILE *fw = fopen(want_path, "r"), *fg = fopen(got_path, "r");
    if (fw == NULL || fg == NULL) {
        perror(fw == NULL ? want_path : got_path);
        if (fw)
            fclose(fw);
        if (fg)
            fclose(fg);
        return 2;
    }
    char *lw = NULL, *lg = NULL;
    size_t cw = 0, cg = 0, lineno = 0;
    ssize_t nw, ng;
    for (;;) {
        nw = getline(&lw, &cw, fw);
        ng = getline(&lg, &cg, fg);
        if (nw == -1 || ng == -1)
            break;
        lineno++;
        json_t *a = load_line(lw, (size_t)nw, lineno, want_path);
        json_t *b = load_line(lg, (size_t)ng, lineno, got_path);
        if (a == NULL || b == NULL) {
            failed++;
        } else {
            const json_t *want = json_object_get(a, "results");
            char why[600];
            size_t bad = results_compare(want, json_object_get(b, "results"),
                                         why, sizeof why);
            tally(a, json_array_size(want), bad, why);
        }
        json_decref(a);
        json_decref(b);
    }
    if (nw != ng) {
        fprintf(stderr, "%s and %s differ in length after line %zu\n",
                want_path, got_path, lineno);
        failed++;
    }
    free(lw);
    free(lg);
    fclose(fw);
    fclose(fg);
    return 0;
}

int main(int argc, char **argv)
{
    int rc;
    if (argc == 2)
        rc = replay(argv[1]);
    else if (argc == 4 && strcmp(argv[1], "--compare") == 0)
        rc = compare_files(argv[2], argv[3]);
    else {
        fprintf(stderr, "usage: test_golden FILE | test_golden --compare "
                        "WANT GOT\n");
        return 2;
    }
    if (rc != 0)
        return rc;
    printf("%zu passed, %zu failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
