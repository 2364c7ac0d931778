/* Decode tests: formats embedded as text (as the kernel prints them),
 * records built by hand, so they run anywhere without tracefs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "check.h"
#include "decode.h"

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

int main(void)
{
	RUN(decode_switch_fields_from_format);
	RUN(decode_long_comm_width_64);
	RUN(decode_data_loc_comm);
	RUN(decode_missing_field_is_absent);
	RUN(decode_rejects_unknown_and_short);
	RUN(decode_other_event_as_json);
	RUN(decode_json_larger_than_any_buffer);
	return check_done("test_decode");
}
