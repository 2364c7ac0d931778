/* json.c — see json.h. */
#include "json.h"

size_t json_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;		/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;		/* past U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void escape_byte(json_put_fn *put, void *ctx, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	put(ctx, e, sizeof(e));
}

void json_string_to(json_put_fn *put, void *ctx, const char *s, size_t n,
		 unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0;	/* bytes at s + run.. go out as they are */

	put(ctx, "\"", 1);
	while (i < n) {
		unsigned char c = u[i];
		const char *short_esc = NULL;
		size_t k = c < 0x80 ? 1 : json_utf8_len(u + i, n - i);

		if (k > 1 && !((flags & JSON_TTY) && c == 0xc2 && u[i + 1] <= 0x9f)) {
			i += k;			/* UTF-8 text */
			continue;
		}
		if (k == 1 && c >= 0x20 && c != '"' && c != '\\' &&
		    !(c == 0x7f && (flags & JSON_TTY))) {
			i++;			/* plain ASCII */
			continue;
		}
		if (i > run)
			put(ctx, s + run, i - run);
		switch (c) {
		case '"': short_esc = "\\\""; break;
		case '\\': short_esc = "\\\\"; break;
		case '\b': short_esc = "\\b"; break;
		case '\f': short_esc = "\\f"; break;
		case '\n': short_esc = "\\n"; break;
		case '\r': short_esc = "\\r"; break;
		case '\t': short_esc = "\\t"; break;
		}
		if (short_esc) {
			put(ctx, short_esc, 2);
			i++;
		} else if (k == 2) {
			escape_byte(put, ctx, u[i + 1]);	/* a C1 control */
			i += 2;
		} else {
			escape_byte(put, ctx, c);	/* a control, no UTF-8 */
			i++;
		}
		run = i;
	}
	if (i > run)
		put(ctx, s + run, i - run);
	put(ctx, "\"", 1);
}
