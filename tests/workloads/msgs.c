/*
 * msgs SEND RECV KEY [ROUNDS] - kernel objects left allocated on purpose: System V messages.
 *
 *   build/workloads/msgs 150 30 7000   # 150 messages sent, 30 received: 120 left queued
 *   build/workloads/msgs 0 0 7000      # removes the queues of key 7000.. (the messages freed)
 *   build/workloads/msgs 100 0 7000 1000000  # then a million messages sent and received back
 *
 * The queues are keys KEY .. KEY+Q-1, Q = ceil(SEND / 50) (50 messages of 208 bytes each fit
 * a queue's default 16384 bytes); any queue of those keys is removed first. Then SEND
 * messages of 208 bytes go to the queues in turn, 50 each, and RECV are received back in the
 * order sent. The workload exits leaving the queues, so the messages not received stay
 * allocated in the kernel until the queues are removed (msgs 0 0 KEY, or ipcrm).
 * Events (whole process):
 *   (1) kmem:kmalloc: exactly SEND of call site alloc_msg's (load_msg), bytes_req 48 + 208 =
 *       256 on x86_64 (struct msg_msg is 48 bytes), bytes_alloc 256.
 *   (2) kmem:kfree: exactly RECV of those pointers (free_msg), each after its kmalloc.
 *   (3) ROUNDS (default 0): then ROUNDS times one message sent and received back on the last
 *       queue (one more queue if SEND is 0): a kmalloc and its kfree each, none left.
 * Exit: 0 ok, 1 a System V call failed (the reason on stderr), 2 usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>

#define PER_QUEUE 50
#define MAX_QUEUES 100
#define TEXT 208

struct message {
	long type;
	char text[TEXT];
};

static long arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v >= 0 && v <= max) ? v : -1;
}

static void remove_queues(long key)
{
	for (int k = 0; k < MAX_QUEUES; k++) {
		int id = msgget((key_t)(key + k), 0);

		if (id >= 0)
			msgctl(id, IPC_RMID, NULL);
	}
}

int main(int argc, char **argv)
{
	long send, recv, key, nq, rounds = 0;
	int ids[MAX_QUEUES];
	struct message m = { .type = 1 };

	if (argc < 4 || argc > 5 || (send = arg(argv[1], PER_QUEUE * MAX_QUEUES)) < 0 ||
	    (recv = arg(argv[2], send)) < 0 || (key = arg(argv[3], 1L << 30)) < 1 ||
	    (argc == 5 && (rounds = arg(argv[4], 1L << 40)) < 0)) {
		fprintf(stderr,
			"usage: msgs SEND RECV KEY [ROUNDS] (RECV <= SEND <= %d, KEY >= 1)\n",
			PER_QUEUE * MAX_QUEUES);
		return 2;
	}
	remove_queues(key);
	nq = (send + PER_QUEUE - 1) / PER_QUEUE + (send == 0 && rounds > 0);
	for (int k = 0; k < nq; k++)
		if ((ids[k] = msgget((key_t)(key + k), IPC_CREAT | IPC_EXCL | 0600)) < 0) {
			fprintf(stderr, "msgs: msgget: %s\n", strerror(errno));
			return 1;
		}
	memset(m.text, 'm', sizeof(m.text));
	for (long i = 0; i < send; i++)
		if (msgsnd(ids[i / PER_QUEUE], &m, sizeof(m.text), IPC_NOWAIT)) {
			fprintf(stderr, "msgs: msgsnd: %s\n", strerror(errno));
			return 1;
		}
	for (long i = 0; i < recv; i++)
		if (msgrcv(ids[i / PER_QUEUE], &m, sizeof(m.text), 0, IPC_NOWAIT) < 0) {
			fprintf(stderr, "msgs: msgrcv: %s\n", strerror(errno));
			return 1;
		}
	for (long i = 0; i < rounds; i++)
		if (msgsnd(ids[nq - 1], &m, sizeof(m.text), 0) ||
		    msgrcv(ids[nq - 1], &m, sizeof(m.text), 0, 0) < 0) {
			fprintf(stderr, "msgs: round %ld: %s\n", i, strerror(errno));
			return 1;
		}
	return 0;
}
