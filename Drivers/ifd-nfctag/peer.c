/* ifd-nfctag's readers and their emulators: the table, the listening sockets, vpcd's framing
 * (a 2-byte big-endian length, then the payload) with deadlines, and length checks on everything
 * an emulator sends. docs/ifd-handler.md. */
#define _GNU_SOURCE  /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ifdhandler.h>
#include <reader.h>

#include "peer.h"

static struct reader readers[READERS];
static pthread_once_t readers_once = PTHREAD_ONCE_INIT;

static void readers_init(void)
{
	for (size_t i = 0; i < READERS; i++) {
		pthread_mutex_init(&readers[i].lock, NULL);
		readers[i].listener = -1;
		readers[i].peer = -1;
	}
}

/* The reader a Lun names: pcscd numbers readers of one driver in the Lun's upper 16 bits. */
struct reader *reader_for(DWORD lun)
{
	size_t index = (size_t)(lun >> 16) & 0xFFFF;
	pthread_once(&readers_once, readers_init);
	if (index >= READERS || (lun & 0xFFFF) != 0)
		return NULL;
	return &readers[index];
}

static long remaining_ms(const struct timespec *deadline)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

void drop_peer(struct reader *r)
{
	if (r->peer >= 0)
		close(r->peer);
	r->peer = -1;
	r->atr_length = 0;
}

/* Takes a waiting emulator, if any, without blocking. */
void accept_peer(struct reader *r)
{
	if (r->peer >= 0 || r->listener < 0)
		return;
	int fd = accept4(r->listener, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	int one = 1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	r->peer = fd;
}

/* Sends one framed message in one send; 0 on success. */
int send_message(struct reader *r, const unsigned char *payload, size_t length)
{
	if (r->peer < 0 || length > FRAME_MAX)
		return -1;
	r->frame[0] = (unsigned char)(length >> 8);
	r->frame[1] = (unsigned char)(length & 0xFF);
	if (length > 0)
		memcpy(r->frame + 2, payload, length);
	size_t total = length + 2, sent = 0;
	while (sent < total) {
		ssize_t n = send(r->peer, r->frame + sent, total - sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		sent += (size_t)n;
	}
	return 0;
}

/* Reads exactly `length` bytes before `deadline`; 0 on success. */
static int receive_exactly(int fd, unsigned char *buffer, size_t length, const struct timespec *deadline)
{
	size_t got = 0;
	while (got < length) {
		long wait = remaining_ms(deadline);
		if (wait <= 0)
			return -1;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ready = poll(&p, 1, (int)(wait > 1000000 ? 1000000 : wait));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		ssize_t n = recv(fd, buffer + got, length - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Receives one message into r->frame (payload from offset 0); its length, or -1 (the peer is
 * then dropped: a closed, silent or garbled emulator is a card gone). */
long receive_message(struct reader *r, int timeout_ms)
{
	struct timespec deadline;
	unsigned char header[2];
	if (r->peer < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec += 1;
		deadline.tv_nsec -= 1000000000;
	}
	if (receive_exactly(r->peer, header, 2, &deadline) != 0)
		goto fail;
	size_t length = (size_t)header[0] << 8 | header[1];
	if (length > 0 && receive_exactly(r->peer, r->frame, length, &deadline) != 0)
		goto fail;
	return (long)length;
fail:
	drop_peer(r);
	return -1;
}

/* One request and its answer; the answer's length, or -1. */
long exchange(struct reader *r, const unsigned char *request, size_t length, int timeout_ms)
{
	if (send_message(r, request, length) != 0) {
		drop_peer(r);
		return -1;
	}
	return receive_message(r, timeout_ms);
}

/* Asks the emulator for its ATR and keeps it; 0 when a card is there. */
int refresh_atr(struct reader *r, int timeout_ms)
{
	static const unsigned char get_atr = MSG_GET_ATR;
	long n = exchange(r, &get_atr, 1, timeout_ms);
	if (n <= 0 || n > MAX_ATR_SIZE) {
		drop_peer(r);
		return -1;
	}
	memcpy(r->atr, r->frame, (size_t)n);
	r->atr_length = (size_t)n;
	return 0;
}

/* The port in a DEVICENAME: what follows the last ':', or the whole text; 0 when none. */
unsigned short parse_port(const char *device)
{
	if (device == NULL)
		return 0;
	const char *colon = strrchr(device, ':');
	const char *text = colon ? colon + 1 : device;
	char *end = NULL;
	errno = 0;
	unsigned long port = strtoul(text, &end, 0);
	if (errno != 0 || end == text || *end != '\0' || port == 0 || port > 65535)
		return 0;
	return (unsigned short)port;
}
