/* Decode tests: formats embedded as text (as the kernel prints them),
 * records built by hand, so they run anywhere without tracefs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "check.h"
#include "decode.h"
#include "pipeline.h"
#include "numtext.h"

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char switch16[] =
	"name: sched_switch\nID: 300\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

/* A kernel with long task names: comm fields of 64 bytes. */
static const char switch64[] =
	"name: sched_switch\nID: 300\nformat:\n" COMMON
	"\tfield:char prev_comm[64];\toffset:8;\tsize:64;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:72;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:76;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:80;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[64];\toffset:88;\tsize:64;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:152;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:156;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

static const char migrate_dyn[] =
	"name: sched_migrate_task\nID: 301\nformat:\n" COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int orig_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s\", __get_str(comm)\n";

/* An older sched_wakeup: no target_cpu field. */
static const char wakeup_old[] =
	"name: sched_wakeup\nID: 302\nformat:\n" COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int success;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s\", REC->comm\n";

static const char irq_entry[] =
	"name: irq_handler_entry\nID: 400\nformat:\n" COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

/* ftrace's trace_marker event: a text of any length, declared buf[]. */
static const char print_fmt[] =
	"name: print\nID: 5\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/* ftrace's trace_marker_raw event: an id, then bytes, declared buf[]. */
static const char raw_fmt[] =
	"name: raw_data\nID: 19\nformat:\n" COMMON
	"\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"id:%04x %08x\", REC->id, (int)REC->buf[0]\n";

/* Dynamic arrays that are not strings (as dma_map_sg's and ipi's). */
static const char dynarr_fmt[] =
	"name: dynarr\nID: 8\nformat:\n" COMMON
	"\tfield:__data_loc u64[] addrs;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc cpumask_t cpumask;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", __print_array(__get_dynamic_array(addrs), 1, 8)\n";

/* ftrace's stack trace: declared caller[8], written as long as it is. */
static const char stack_fmt[] =
	"name: kernel_stack\nID: 4\nformat:\n" COMMON
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\", (void *)REC->caller[0]\n";

/* A last array the struct pads (to 8, after 4 bytes), and one followed
 * by the data of a __data_loc string. */
static const char padded_fmt[] =
	"name: padded\nID: 6\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int x[1];\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d\", REC->x[0]\n";
static const char dynamic_fmt[] =
	"name: dyn\nID: 7\nformat:\n" COMMON
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int v[2];\toffset:12;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%s\", __get_str(name)\n";

static struct tep_handle *tep_with(const char *const *formats, const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();

	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	for (int i = 0; formats[i]; i++)
		if (tep_parse_event(tep, formats[i], strlen(formats[i]), systems[i]))
			fprintf(stderr, "cannot parse format %d\n", i);
	return tep;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The JSON of one record ("(undecodable)" when it does not decode). */
static const char *json_of(struct decode *d, const uint8_t *rec, int size)
{
	static char json[512];
	struct decode_event ev;

	if (decode_record(d, rec, size, 0, 1, &ev))
		return "(undecodable)";
	decode_fields_json(d, &ev, json, sizeof(json));
	return json;
}

static void decode_switch_fields_from_format(void)
{
	const char *f[] = { switch16, NULL }, *s[] = { "sched" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	uint8_t rec[64] = { 0 };

	put16(rec, 300);
	put32(rec + 4, 42);
	memcpy(rec + 8, "bash", 4);
	put32(rec + 24, 42);
	put32(rec + 28, 120);
	put64(rec + 32, 1);
	memcpy(rec + 40, "swapper/1", 9);
	put32(rec + 56, 0);
	put32(rec + 60, 120);
	CHECK(d != NULL);
	CHECK_INT(decode_comm_width(d), 16);
	CHECK_INT(decode_record(d, rec, sizeof(rec), 1, 1000, &ev), 0);
	CHECK_INT(ev.kind, DECODE_SCHED_SWITCH);
	CHECK_INT(ev.pid, 42);
	CHECK_INT(ev.p[0], 42);
	CHECK_INT(ev.p[1], 0);
	CHECK_INT(ev.c[0].len, 4);
	CHECK(!memcmp(ev.c[0].s, "bash", 4));
	CHECK_INT(ev.c[1].len, 9);
	CHECK_INT(ev.v[0], 120);
	CHECK_INT(ev.v[1], 1);
	CHECK_INT(ev.has & (DECODE_HAS_C0 | DECODE_HAS_C1 | DECODE_HAS_V2),
		  DECODE_HAS_C0 | DECODE_HAS_C1 | DECODE_HAS_V2);
	decode_free(d);
	tep_free(tep);
}

/* A trace.dat from a big-endian machine (s390x, ppc64) read here: every
 * number of the record is swapped, the names are not. */
/* sched_switch as three kernels print prev_state: 4.4 (raw state, R+ at
 * 2048), 4.9 (4.8-4.13: TASK_NEW, 2048, left out of the table, R+ at
 * 4096) and 6.x (TASK_REPORT, R+ at 256, the masks as expressions). */
#define SWITCH_FIELDS \
	"name: sched_switch\nID: 300\nformat:\n" COMMON \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n" \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n" \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
#define SWITCH_NEXT ", REC->next_comm, REC->next_pid, REC->next_prio\n"

static const char switch_4_4[] = SWITCH_FIELDS
	"REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & (2048-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 2048 ? \"+\" : \"\"" SWITCH_NEXT;
static const char switch_4_9[] = SWITCH_FIELDS
	"REC->prev_state & (4096-1) ? __print_flags(REC->prev_state & (4096-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 4096 ? \"+\" : \"\"" SWITCH_NEXT;
static const char switch_6[] = SWITCH_FIELDS
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", "
	"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, "
	"{ 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\"" SWITCH_NEXT;

static void state_letters_of_three_kernels(void)
{
	const char *const fmts[] = { switch_4_4, switch_4_9, switch_6 };
	const char *const want[] = {
		"1:S,2:D,4:T,8:t,16:Z,32:X,64:x,128:K,256:W,512:P,1024:N,0:R,+2048",
		"1:S,2:D,4:T,8:t,16:Z,32:X,64:x,128:K,256:W,512:P,1024:N,0:R,+4096",
		"1:S,2:D,4:T,8:t,16:X,32:Z,64:P,128:I,0:R,+256",
	};
	const char *s[] = { "sched", NULL };

	for (int i = 0; i < 3; i++) {
		const char *f[] = { fmts[i], NULL };
		struct tep_handle *tep = tep_with(f, s);
		char buf[256];

		CHECK_INT(pipeline_state_letters(tep, buf, sizeof(buf)), 0);
		CHECK_STR(buf, want[i]);
		tep_free(tep);
	}
}

static void decode_big_endian_file(void)
{
	const char *f[] = { switch16, irq_entry, NULL }, *s[] = { "sched", "irq" };
	struct tep_handle *tep = tep_alloc();
	struct decode *d;
	struct decode_event ev;
	uint8_t rec[64] = { 0 };

	tep_set_file_bigendian(tep, TEP_BIG_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	for (int i = 0; f[i]; i++)
		CHECK_INT(tep_parse_event(tep, f[i], strlen(f[i]), s[i]), 0);
	d = decode_new(tep);
	put16(rec, __builtin_bswap16(300));
	put32(rec + 4, __builtin_bswap32(4242));
	memcpy(rec + 8, "bash", 4);
	put32(rec + 24, __builtin_bswap32(4242));
	put32(rec + 28, __builtin_bswap32(120));
	put64(rec + 32, __builtin_bswap64(0x402));	/* two bytes apart: swapped, not shifted */
	memcpy(rec + 40, "kworker/0:1", 11);
	put32(rec + 56, __builtin_bswap32(77));
	put32(rec + 60, __builtin_bswap32(100));
	CHECK_INT(decode_record(d, rec, sizeof(rec), 1, 1000, &ev), 0);
	CHECK_INT(ev.kind, DECODE_SCHED_SWITCH);
	CHECK_INT(ev.pid, 4242);
	CHECK_INT(ev.p[0], 4242);
	CHECK_INT(ev.p[1], 77);
	CHECK_INT(ev.v[0], 120);
	CHECK_INT(ev.v[1], 0x402);
	CHECK_INT(ev.v[2], 100);
	CHECK_INT(ev.c[1].len, 11);
	CHECK(!memcmp(ev.c[1].s, "kworker/0:1", 11));

	memset(rec, 0, sizeof(rec));
	put16(rec, __builtin_bswap16(400));
	put32(rec + 8, __builtin_bswap32((uint32_t)-5));
	put32(rec + 12, __builtin_bswap32((8u << 16) | 16));
	memcpy(rec + 16, "virtio0", 8);
	CHECK_STR(json_of(d, rec, 24), "{\"irq\":-5,\"name\":\"virtio0\"}");
	decode_free(d);
	tep_free(tep);
}

static void decode_long_comm_width_64(void)
{
	const char *f[] = { switch64, NULL }, *s[] = { "sched" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	uint8_t rec[160] = { 0 };
	const char *longname = "a-thread-name-longer-than-sixteen-bytes";

	put16(rec, 300);
	put32(rec + 4, 7);
	memcpy(rec + 8, longname, strlen(longname));
	put32(rec + 72, 7);
	put32(rec + 152, 8);
	CHECK_INT(decode_comm_width(d), 64);
	CHECK_INT(decode_record(d, rec, sizeof(rec), 0, 5, &ev), 0);
	CHECK_INT(ev.c[0].len, strlen(longname));
	CHECK_INT(ev.p[1], 8);
	decode_free(d);
	tep_free(tep);
}

static void decode_data_loc_comm(void)
{
	const char *f[] = { migrate_dyn, NULL }, *s[] = { "sched" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	uint8_t rec[48] = { 0 };

	put16(rec, 301);
	put32(rec + 4, 9);
	put32(rec + 8, (6u << 16) | 28);	/* len 6 at offset 28 */
	put32(rec + 12, 77);
	put32(rec + 16, 120);
	put32(rec + 20, 0);
	put32(rec + 24, 1);
	memcpy(rec + 28, "kwork", 6);
	CHECK_INT(decode_record(d, rec, 34, 0, 5, &ev), 0);
	CHECK_INT(ev.kind, DECODE_SCHED_MIGRATE_TASK);
	CHECK_INT(ev.c[0].len, 5);
	CHECK(!memcmp(ev.c[0].s, "kwork", 5));
	CHECK_INT(ev.p[0], 77);
	CHECK_INT(ev.v[2], 1);
	/* A string pointing past the record is absent, and counted. */
	put32(rec + 8, (6u << 16) | 40);
	CHECK_INT(decode_record(d, rec, 34, 0, 5, &ev), 0);
	CHECK(!(ev.has & DECODE_HAS_C0));
	CHECK_INT(decode_field_errors(d), 1);
	decode_free(d);
	tep_free(tep);
}

static void decode_missing_field_is_absent(void)
{
	const char *f[] = { wakeup_old, NULL }, *s[] = { "sched" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	uint8_t rec[36] = { 0 };

	put16(rec, 302);
	memcpy(rec + 8, "x", 1);
	put32(rec + 24, 5);
	CHECK_INT(decode_record(d, rec, sizeof(rec), 0, 1, &ev), 0);
	CHECK_INT(ev.kind, DECODE_SCHED_WAKEUP);
	CHECK(ev.has & DECODE_HAS_V0);
	CHECK(!(ev.has & DECODE_HAS_V1));	/* no target_cpu on this kernel */
	decode_free(d);
	tep_free(tep);
}

static void decode_rejects_unknown_and_short(void)
{
	const char *f[] = { switch16, NULL }, *s[] = { "sched" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	uint8_t rec[64] = { 0 };

	put16(rec, 999);
	CHECK_INT(decode_record(d, rec, sizeof(rec), 0, 1, &ev), -1);
	put16(rec, 300);
	CHECK_INT(decode_record(d, rec, 6, 0, 1, &ev), -1);	/* no common_pid */
	/* Cut inside the fields: what is missing is absent, not garbage. */
	CHECK_INT(decode_record(d, rec, 30, 0, 1, &ev), 0);
	CHECK(ev.has & DECODE_HAS_P0);
	CHECK(!(ev.has & DECODE_HAS_C1));
	decode_free(d);
	tep_free(tep);
}

static void decode_other_event_as_json(void)
{
	const char *f[] = { irq_entry, NULL }, *s[] = { "irq" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	uint8_t rec[32] = { 0 };
	char json[128];

	put16(rec, 400);
	put32(rec + 4, 3);
	put32(rec + 8, (uint32_t)-5);
	put32(rec + 12, (8u << 16) | 16);
	memcpy(rec + 16, "vir\"tio", 8);
	CHECK_INT(decode_record(d, rec, 24, 0, 1, &ev), 0);
	CHECK_INT(ev.kind, DECODE_OTHER);
	CHECK_INT(decode_fields_json(d, &ev, json, sizeof(json)), 28);
	CHECK_STR(json, "{\"irq\":-5,\"name\":\"vir\\\"tio\"}");
	/* Too small: no cut object, and the size it needs. */
	CHECK_INT(decode_fields_json(d, &ev, json, 10), 28);
	CHECK_STR(json, "");
	CHECK_INT(decode_fields_json(d, &ev, json, 28), 28);
	CHECK_STR(json, "");
	decode_free(d);
	tep_free(tep);
}

/* A record of a page can make far more JSON than any fixed buffer holds
 * (every control byte is 6 characters): nothing is cut, the caller learns
 * the size and gets the whole object with a buffer that big. */
static void decode_json_larger_than_any_buffer(void)
{
	const char *f[] = { irq_entry, NULL }, *s[] = { "irq" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	struct decode_event ev;
	static uint8_t rec[4000];
	char small[128], *big;
	size_t need;

	put16(rec, 400);
	put32(rec + 8, 7);
	put32(rec + 12, (3001u << 16) | 16);
	memset(rec + 16, 1, 3000);		/* 3000 x \u0001, then the NUL */
	CHECK_INT(decode_record(d, rec, 16 + 3001, 0, 1, &ev), 0);
	need = decode_fields_json(d, &ev, small, sizeof(small));
	CHECK_INT(need, strlen("{\"irq\":7,\"name\":\"\"}") + 3000 * 6);
	CHECK_STR(small, "");
	big = malloc(need + 1);
	CHECK_INT(decode_fields_json(d, &ev, big, need + 1), need);
	CHECK_INT(strlen(big), need);
	CHECK(!strncmp(big, "{\"irq\":7,\"name\":\"\\u0001\\u0001", 29));
	CHECK(!strcmp(big + need - 8, "\\u0001\"}"));
	free(big);
	decode_free(d);
	tep_free(tep);
}

/* char buf[] (size 0 in the format) is the rest of the record: the text
 * trace_marker got, stopping at its NUL (the record's padding after). */
static void decode_json_array_without_size_to_record_end(void)
{
	const char *f[] = { print_fmt, NULL }, *s[] = { "ftrace" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	uint8_t rec[40] = { 0 };

	put16(rec, 5);
	put64(rec + 8, 0x1234);
	memcpy(rec + 16, "hello marker\n", 14);	/* then NULs */
	CHECK_STR(json_of(d, rec, 36), "{\"ip\":4660,\"buf\":\"hello marker\\n\"}");
	/* A record ending where the text starts: an empty text. */
	CHECK_STR(json_of(d, rec, 16), "{\"ip\":4660,\"buf\":\"\"}");
	decode_free(d);
	tep_free(tep);
}

/* trace_marker_raw's payload is bytes, NULs and all, as many as the record
 * holds (trace-cmd report prints them the same way, the rounding to 4
 * included); a marker text with a NUL inside is bytes too, but the 3
 * bytes of rounding after a text's NUL, whatever they hold, leave it a
 * text. */
static void decode_json_binary_char_arrays_as_bytes(void)
{
	const char *f[] = { raw_fmt, print_fmt, NULL }, *s[] = { "ftrace", "ftrace" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	uint8_t rec[40] = { 0 };

	put16(rec, 19);
	put32(rec + 8, 0x12345678);
	for (int i = 0; i < 8; i++)
		rec[12 + i] = (uint8_t)i;
	CHECK_STR(json_of(d, rec, 20), "{\"id\":305419896,\"buf\":[0,1,2,3,4,5,6,7]}");
	/* All zeros are still bytes: one written, three of rounding. */
	memset(rec + 12, 0, 8);
	CHECK_STR(json_of(d, rec, 16), "{\"id\":305419896,\"buf\":[0,0,0,0]}");
	CHECK_STR(json_of(d, rec, 12), "{\"id\":305419896,\"buf\":[]}");

	memset(rec, 0, sizeof(rec));
	put16(rec, 5);
	memcpy(rec + 16, "a\0b\n", 5);
	CHECK_STR(json_of(d, rec, 24), "{\"ip\":0,\"buf\":[97,0,98,10,0,0,0,0]}");
	memcpy(rec + 16, "hi\n\0\x7f\x7f\x7f", 7);	/* stale rounding bytes */
	CHECK_STR(json_of(d, rec, 23), "{\"ip\":0,\"buf\":\"hi\\n\"}");
	decode_free(d);
	tep_free(tep);
}

/* Fixed arrays of u8, s8 or unsigned char (addresses: sock's saddr, a
 * MAC) are bytes, not text up to a NUL, even printed with %s; one of
 * char is text. */
static const char addr_fmt[] =
	"name: inet_addr\nID: 9\nformat:\n" COMMON
	"\tfield:__u8 saddr[4];\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char mac[6];\toffset:12;\tsize:6;\tsigned:0;\n"
	"\tfield:char name[4];\toffset:18;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char label[4];\toffset:22;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"saddr=%pI4 mac=%pM name=%s label=%s\", REC->saddr, REC->mac, REC->name, REC->label\n";

static void decode_json_byte_arrays_not_text(void)
{
	const char *f[] = { addr_fmt, NULL }, *s[] = { "sock" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	uint8_t rec[32] = { 0 };

	put16(rec, 9);
	memcpy(rec + 8, "\x0a\x00\x00\x01", 4);
	memcpy(rec + 12, "\x02\x00\xff\x10\x20\x30", 6);
	memcpy(rec + 18, "eth", 4);
	memcpy(rec + 22, "lo\0x", 4);
	CHECK_STR(json_of(d, rec, 26), "{\"saddr\":[10,0,0,1],\"mac\":[2,0,255,16,32,48],"
		  "\"name\":\"eth\",\"label\":[108,111,0,120]}");
	decode_free(d);
	tep_free(tep);
}

/* A __data_loc array of numbers gives its numbers; of a type whose size
 * the format does not say (cpumask_t), its bytes. */
static void decode_json_dynamic_arrays_not_strings(void)
{
	const char *f[] = { dynarr_fmt, NULL }, *s[] = { "test" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	uint8_t rec[48] = { 0 };

	put16(rec, 8);
	put32(rec + 8, (16u << 16) | 16);
	put32(rec + 12, (2u << 16) | 32);
	put64(rec + 16, 0x1000);
	put64(rec + 24, 0x2000);
	rec[32] = 5;
	rec[33] = 1;
	CHECK_STR(json_of(d, rec, 36), "{\"addrs\":[4096,8192],\"cpumask\":[5,1]}");
	decode_free(d);
	tep_free(tep);
}

/* Text keeps its UTF-8; bytes that are no UTF-8 (a stray continuation
 * byte, 0xff, an overlong form, a surrogate, a cut sequence) and control
 * characters are escaped one by one; DEL is kept (JSON allows it). */
static void decode_json_utf8_kept_invalid_bytes_escaped(void)
{
	const char *f[] = { print_fmt, NULL }, *s[] = { "ftrace" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	static const char text[] =
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7|\x80\xff|\xc0\xaf|"
		"\xed\xa0\x80|\xf4\x90\x80\x80|\x7f\x01|\xe2\x82";
	uint8_t rec[96] = { 0 };

	put16(rec, 5);
	memcpy(rec + 16, text, sizeof(text) - 1);
	CHECK_STR(json_of(d, rec, 16 + (int)sizeof(text) - 1),
		  "{\"ip\":0,\"buf\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7|"
		  "\\u0080\\u00ff|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080|"
		  "\\u00f4\\u0090\\u0080\\u0080|\x7f\\u0001|\\u00e2\\u0082\"}");
	decode_free(d);
	tep_free(tep);
}

/* kernel_stack declares caller[8]; the kernel writes `size` entries, as
 * many as the stack has: 3 or 11, the record says. */
static void decode_json_stack_as_long_as_written(void)
{
	const char *f[] = { stack_fmt, NULL }, *s[] = { "ftrace" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	uint8_t rec[16 + 11 * 8] = { 0 };

	put16(rec, 4);
	for (int i = 0; i < 11; i++)
		put64(rec + 16 + 8 * i, 100 + (uint64_t)i);
	put32(rec + 8, 11);
	CHECK_STR(json_of(d, rec, sizeof(rec)),
		  "{\"size\":11,\"caller\":[100,101,102,103,104,105,106,107,"
		  "108,109,110]}");
	put32(rec + 8, 3);
	CHECK_STR(json_of(d, rec, 16 + 3 * 8), "{\"size\":3,\"caller\":[100,101,102]}");
	/* 4 bytes past the 8th entry: the ring buffer's rounding, no entry. */
	put32(rec + 8, 8);
	CHECK_STR(json_of(d, rec, 16 + 8 * 8 + 4),
		  "{\"size\":8,\"caller\":[100,101,102,103,104,105,106,107]}");
	decode_free(d);
	tep_free(tep);
}

/* Only whole 8-byte steps past a last array are the kernel's (struct
 * padding is less), and nothing past it when the event has dynamic
 * fields (their data follows). */
static void decode_json_last_array_not_grown_into_padding_or_data(void)
{
	const char *f[] = { padded_fmt, dynamic_fmt, NULL }, *s[] = { "t", "t" };
	struct tep_handle *tep = tep_with(f, s);
	struct decode *d = decode_new(tep);
	uint8_t rec[40] = { 0 };

	put16(rec, 6);
	put32(rec + 16, 7);
	put32(rec + 20, 9);			/* the struct's padding */
	CHECK_STR(json_of(d, rec, 24), "{\"ip\":0,\"x\":[7]}");

	memset(rec, 0, sizeof(rec));
	put16(rec, 7);
	put32(rec + 8, (8u << 16) | 20);
	put32(rec + 12, 1);
	put32(rec + 16, 2);
	memcpy(rec + 20, "abcdefg", 8);		/* the string's data */
	CHECK_STR(json_of(d, rec, 28), "{\"name\":\"abcdefg\",\"v\":[1,2]}");
	decode_free(d);
	tep_free(tep);
}

/* The fields' numbers as JSON (and the rows shipped as text) are written
 * two digits a step: the same text as printf's, at every length and at
 * both ends of the range. */
static void numbers_as_text(void)
{
	static const int64_t sv[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535,
				      -1, -9, -10, -99, -100, 4294967295LL, -4294967296LL,
				      INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	static const uint64_t uv[] = { 0, 7, 10, 12345678901234567890ull, UINT64_MAX };

	for (size_t i = 0; i < sizeof(sv) / sizeof(*sv); i++) {
		char buf[NUMTEXT_MAX + 1], want[32], *e = buf + NUMTEXT_MAX;

		*e = '\0';
		snprintf(want, sizeof(want), "%lld", (long long)sv[i]);
		CHECK_STR(numtext_i64(e, sv[i]), want);
	}
	for (size_t i = 0; i < sizeof(uv) / sizeof(*uv); i++) {
		char buf[NUMTEXT_MAX + 1], want[32], *e = buf + NUMTEXT_MAX;

		*e = '\0';
		snprintf(want, sizeof(want), "%llu", (unsigned long long)uv[i]);
		CHECK_STR(numtext_u64(e, uv[i]), want);
	}
}

int main(void)
{
	RUN(numbers_as_text);
	RUN(state_letters_of_three_kernels);
	RUN(decode_switch_fields_from_format);
	RUN(decode_long_comm_width_64);
	RUN(decode_big_endian_file);
	RUN(decode_data_loc_comm);
	RUN(decode_missing_field_is_absent);
	RUN(decode_rejects_unknown_and_short);
	RUN(decode_other_event_as_json);
	RUN(decode_json_larger_than_any_buffer);
	RUN(decode_json_array_without_size_to_record_end);
	RUN(decode_json_binary_char_arrays_as_bytes);
	RUN(decode_json_dynamic_arrays_not_strings);
	RUN(decode_json_byte_arrays_not_text);
	RUN(decode_json_utf8_kept_invalid_bytes_escaped);
	RUN(decode_json_stack_as_long_as_written);
	RUN(decode_json_last_array_not_grown_into_padding_or_data);
	return check_done("test_decode");
}
