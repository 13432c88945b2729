/* launch_stream.c - the replies of a launch or an attach, reported as
 * they come (report.h). */
#include "config.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "report.h"

int cli_stream_launch(int fd, struct launch_report *rep, bool detach,
		      const char *what)
{
	for (;;) {
		Scctl__Reply *r = cli_recv(fd);
		int code;

		if (!r) {
			report_clear_progress(rep);
			if (cli_interrupted)
				return cli_report_interrupted(rep->session);
			return EXIT_FAIL;
		}
		if (detach && r->session) {
			if (rep->json)
				printf("{\"session\": \"%s\"}\n", r->session);
			else
				printf("%s\n", r->session);
			scctl__reply__free_unpacked(r, NULL);
			return EXIT_NO_BUG;
		}
		if (r->notice) {
			/* One line each, as the daemon joined them. */
			report_clear_progress(rep);
			for (const char *l = r->notice; *l;) {
				const char *nl = strchr(l, '\n');
				int len = nl ? (int)(nl - l) : (int)strlen(l);
				cli_error("%.*s", len, l);
				l += len + (nl != NULL);
			}
		}
		if (r->session)
			report_launch_start(rep, r->session, r->planned_runs);
		if (r->run)
			report_launch_run(rep, r->run);
		if (r->summary) {
			if (r->error) {
				report_clear_progress(rep);
				cli_error("%s", r->error);
			}
			report_launch_summary(rep, r->summary);
			code = r->summary->exit_code;
			scctl__reply__free_unpacked(r, NULL);
			return code;
		}
		if (r->has_ok && !r->ok && cli_interrupted) {
			/* The daemon's account of our own Ctrl-C (it was
			 * still reading the program's input). */
			report_clear_progress(rep);
			scctl__reply__free_unpacked(r, NULL);
			return cli_report_interrupted(rep->session);
		}
		if (r->has_ok && !r->ok) {
			report_clear_progress(rep);
			if (r->error)
				cli_error("%s", r->error);
			else
				cli_error("%s failed", what);
			code = r->has_exit_code ? r->exit_code : EXIT_FAIL;
			scctl__reply__free_unpacked(r, NULL);
			return code;
		}
		scctl__reply__free_unpacked(r, NULL);
	}
}
