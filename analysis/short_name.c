/* short_name.c - a C++ function's name short enough for a line of text
 * (analysis.h). */
#include <stdio.h>
#include <string.h>

#include "analysis.h"

/* Put c to out (o is the length so far), leaving room for the NUL. */
static void put(char *out, size_t len, size_t *o, char c)
{
	if (*o + 1 < len)
		out[(*o)++] = c;
}

void sc_short_name(const char *name, size_t max, char *out, size_t len)
{
	size_t o = 0;
	int depth = 0;

	if (!len)
		return;
	if (strlen(name) <= max) {
		snprintf(out, len, "%s", name);
		return;
	}
	for (const char *p = name; *p; p++) {
		/* operator<, operator<<=, operator->, operator<=>: their
		 * angle brackets open or close no template list. */
		if (strncmp(p, "operator", 8) == 0) {
			for (int i = 0; i < 8; i++, p++)
				if (depth == 0)
					put(out, len, &o, *p);
			while (*p && strchr("<>=-", *p)) {
				if (depth == 0)
					put(out, len, &o, *p);
				p++;
			}
			if (!*p)
				break;
		}
		if (*p == '<') {
			if (depth++ == 0) {
				put(out, len, &o, '<');
				put(out, len, &o, '.');
				put(out, len, &o, '.');
				put(out, len, &o, '.');
			}
		} else if (*p == '>' && depth > 0) {
			if (--depth == 0)
				put(out, len, &o, '>');
		} else if (depth == 0) {
			put(out, len, &o, *p);
		}
	}
	out[o] = '\0';
}
