/* The readers of ifd-nfctag and the vpcd-framed messages to their emulators (docs/ifd-handler.md). */
#ifndef IFD_NFCTAG_PEER_H
#define IFD_NFCTAG_PEER_H

#include <stddef.h>
#include <pthread.h>

#include <ifdhandler.h>

#define READERS PCSCLITE_MAX_READERS_CONTEXTS
#define FRAME_MAX 0xFFFF
#define MSG_POWER_OFF 0x00
#define MSG_POWER_ON 0x01
#define MSG_RESET 0x02
#define MSG_GET_ATR 0x04
#define MSG_CONTROL 0x10
#define CONTROL_OK 0x00
#define CONTROL_UNSUPPORTED 0x01
/* How long an answer may take: a presence poll is short, an APDU may be slow (fault injection). */
#define POLL_TIMEOUT_MS 5000
#define ANSWER_TIMEOUT_MS 60000

/* One reader of /etc/reader.conf.d/nfctag; every field behind `lock`. */
struct reader {
	pthread_mutex_t lock;
	int open;                            /* IFDHCreateChannel… succeeded */
	int listener;                        /* the listening socket, or -1 */
	int peer;                            /* the connected emulator, or -1: no card */
	unsigned char atr[MAX_ATR_SIZE];     /* the emulator's last ATR */
	size_t atr_length;
	unsigned char frame[FRAME_MAX + 2];  /* one message out (with its length) or in (payload only) */
};

/* Not exported from the driver: pcscd looks up the IFDH functions only. */
#pragma GCC visibility push(hidden)
struct reader *reader_for(DWORD lun);
void drop_peer(struct reader *r);
void accept_peer(struct reader *r);
int send_message(struct reader *r, const unsigned char *payload, size_t length);
long receive_message(struct reader *r, int timeout_ms);
long exchange(struct reader *r, const unsigned char *request, size_t length, int timeout_ms);
int refresh_atr(struct reader *r, int timeout_ms);
unsigned short parse_port(const char *device);
#pragma GCC visibility pop

#endif
