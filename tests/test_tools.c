/* test_tools.c - the course's scripts (the shell tools in tools/) tested as a user meets them.
 *
 * Each tests/tools/NAME.sh is one test: it runs with the repository's root as
 * its argument and its working folder, makes whatever scratch copy or stand-in
 * programs it needs under a folder of its own, and exits 0 (passed) or not
 * (failed: its last lines say why). Asked first with `--can-run`, it exits 0
 * if it can run here, or 77 and says on one line what it lacks: then it counts
 * as skipped, not passed. Adding a script adds a test. */
#include "harness.h"

#include <dirent.h>

#define MAX_SCRIPTS 256
static char scripts[MAX_SCRIPTS][256];
static int script_count, skipped_count, left_out_count; /* left out: past MAX_SCRIPTS, or a name too long */

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* Keeps a script that can run here; counts and names one that cannot. */
static void keep_if_runnable(const char *name, size_t len)
{
    int rc = harness_shell("cd %s && bash tests/tools/%s --can-run", harness_q(PROGRAM_DIR), harness_q(name));
    if (rc == 77) {
        skipped_count++;
        return;
    }
    memcpy(scripts[script_count++], name, len + 1);
}

static void find_scripts(void)
{
    DIR *d = opendir(PROGRAM_DIR "/tests/tools");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len <= 3 || strcmp(e->d_name + len - 3, ".sh") != 0)
            continue;
        if (script_count < MAX_SCRIPTS && len < sizeof scripts[0])
            keep_if_runnable(e->d_name, len);
        else
            left_out_count++;
    }
    closedir(d);
    qsort(scripts, (size_t)script_count, sizeof scripts[0], by_name);
}

START_TEST(script_passes)
{
    const char *name = scripts[_i];
    char log[512];
    snprintf(log, sizeof log, "%s/%s.log", harness_scratch("test_tools"), name);
    int rc = harness_shell("cd %s && bash tests/tools/%s %s > %s 2>&1", harness_q(PROGRAM_DIR), harness_q(name),
                           harness_q(PROGRAM_DIR), harness_q(log));
    char *out = harness_read_file(log);
    const char *tail = out ? out + strlen(out) : "";
    for (int lines = 0; out && tail > out && lines < 12; tail--)
        lines += tail[-1] == '\n';
    /* One line (the suites' summaries show a failure's first line only): the
     * script's last lines joined by " | ", its last 600 characters at most. */
    char flat[640];
    size_t used = 0;
    for (const char *c = tail; *c && used + 4 < sizeof flat; c++) {
        if (*c == '\n' && c[1])
            used += (size_t)snprintf(flat + used, sizeof flat - used, " | ");
        else if (*c != '\n')
            flat[used++] = *c;
    }
    flat[used] = '\0';
    ck_assert_msg(rc == 0, "tests/tools/%s failed (exit %d); its last lines: %s", name, rc,
                  used > 600 ? flat + used - 600 : flat);
    free(out);
}
END_TEST

/* A script the table has no room for fails the suite, instead of going
 * unrun without a word. */
START_TEST(no_script_left_out)
{
    ck_assert_msg(left_out_count == 0, "%d script(s) in tests/tools not run: more than %d, or a name of 256 bytes or "
                  "more (raise MAX_SCRIPTS in tests/test_tools.c)", left_out_count, MAX_SCRIPTS);
}
END_TEST

int main(void)
{
    find_scripts();
    Suite *s = suite_create("tools");
    TCase *tc = tcase_create("scripts");
    tcase_set_timeout(tc, 300);
    if (script_count > 0)
        tcase_add_loop_test(tc, script_passes, 0, script_count);
    tcase_add_test(tc, no_script_left_out);
    suite_add_tcase(s, tc);
    return harness_run(s, "tools", skipped_count);
}
