/*
 * ifd-nfctag: a pcsc-lite IFD handler (pcsc-lite's ifdhandler.h, version 3.0) whose readers are
 * `nfctag emulate` processes. Each reader of /etc/reader.conf.d/nfctag listens on 127.0.0.1 at
 * the port its DEVICENAME names ("/dev/null:36100" or "36100"); the emulator connects as a client
 * and speaks vpcd's protocol (every message a 2-byte big-endian length and the payload; 1-byte
 * messages 00 power off, 01 power on, 02 reset, 04 get ATR; anything longer an APDU), so that
 * `nfctag emulate --vpcd 127.0.0.1:PORT` serves it unchanged. One extension carries SCardControl:
 * the 1-byte message 10 (answered 10 by an emulator that knows it), then one message with the
 * control code (4 bytes, big-endian) and the data, answered by one message: 00 and the answer,
 * 01 when the reader does not take the code, 02 for a request too short to hold one.
 * docs/ifd-handler.md describes it; peer.c holds the sockets and the framing.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <ifdhandler.h>
#include <reader.h>

#include "peer.h"

static RESPONSECODE open_channel(DWORD Lun, unsigned short port)
{
	struct reader *r = reader_for(Lun);
	if (r == NULL || port == 0)
		return IFD_COMMUNICATION_ERROR;
	pthread_mutex_lock(&r->lock);
	RESPONSECODE rv = IFD_COMMUNICATION_ERROR;
	if (r->open)
		goto out;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto out;
	int one = 1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons(port) };
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 1) != 0) {
		close(fd);
		goto out;
	}
	r->listener = fd;
	r->peer = -1;
	r->atr_length = 0;
	r->open = 1;
	rv = IFD_SUCCESS;
out:
	pthread_mutex_unlock(&r->lock);
	return rv;
}

RESPONSECODE IFDHCreateChannelByName(DWORD Lun, LPSTR DeviceName)
{
	return open_channel(Lun, parse_port(DeviceName));
}

RESPONSECODE IFDHCreateChannel(DWORD Lun, DWORD Channel)
{
	return open_channel(Lun, Channel > 0 && Channel <= 65535 ? (unsigned short)Channel : 0);
}

RESPONSECODE IFDHCloseChannel(DWORD Lun)
{
	struct reader *r = reader_for(Lun);
	if (r == NULL)
		return IFD_COMMUNICATION_ERROR;
	pthread_mutex_lock(&r->lock);
	drop_peer(r);
	if (r->listener >= 0)
		close(r->listener);
	r->listener = -1;
	r->open = 0;
	pthread_mutex_unlock(&r->lock);
	return IFD_SUCCESS;
}

static RESPONSECODE one_byte(PDWORD Length, PUCHAR Value, unsigned char byte)
{
	if (*Length < 1)
		return IFD_ERROR_INSUFFICIENT_BUFFER;
	Value[0] = byte;
	*Length = 1;
	return IFD_SUCCESS;
}

RESPONSECODE IFDHGetCapabilities(DWORD Lun, DWORD Tag, PDWORD Length, PUCHAR Value)
{
	struct reader *r = reader_for(Lun);
	if (r == NULL || Length == NULL || Value == NULL)
		return IFD_COMMUNICATION_ERROR;
	RESPONSECODE rv;
	pthread_mutex_lock(&r->lock);
	switch (Tag) {
	case TAG_IFD_ATR:
	case SCARD_ATTR_ATR_STRING:
		if (r->peer < 0 || r->atr_length == 0)
			rv = IFD_COMMUNICATION_ERROR;
		else if (*Length < r->atr_length)
			rv = IFD_ERROR_INSUFFICIENT_BUFFER;
		else {
			memcpy(Value, r->atr, r->atr_length);
			*Length = r->atr_length;
			rv = IFD_SUCCESS;
		}
		break;
	case TAG_IFD_SLOTS_NUMBER:
		rv = one_byte(Length, Value, 1);
		break;
	case TAG_IFD_SIMULTANEOUS_ACCESS:
		rv = one_byte(Length, Value, READERS);
		break;
	case TAG_IFD_THREAD_SAFE:
		rv = one_byte(Length, Value, 1);  /* each reader has its own lock */
		break;
	case TAG_IFD_SLOT_THREAD_SAFE:
		rv = one_byte(Length, Value, 0);  /* one slot per reader */
		break;
	default:
		rv = IFD_ERROR_TAG;
	}
	if (rv != IFD_SUCCESS)
		*Length = 0;
	pthread_mutex_unlock(&r->lock);
	return rv;
}

RESPONSECODE IFDHSetCapabilities(DWORD Lun, DWORD Tag, DWORD Length, PUCHAR Value)
{
	(void)Lun, (void)Tag, (void)Length, (void)Value;
	return IFD_NOT_SUPPORTED;
}

RESPONSECODE IFDHSetProtocolParameters(DWORD Lun, DWORD Protocol, UCHAR Flags, UCHAR PTS1, UCHAR PTS2, UCHAR PTS3)
{
	(void)Flags, (void)PTS1, (void)PTS2, (void)PTS3;
	if (reader_for(Lun) == NULL)
		return IFD_COMMUNICATION_ERROR;
	return Protocol == SCARD_PROTOCOL_T0 || Protocol == SCARD_PROTOCOL_T1 ? IFD_SUCCESS : IFD_PROTOCOL_NOT_SUPPORTED;
}

RESPONSECODE IFDHPowerICC(DWORD Lun, DWORD Action, PUCHAR Atr, PDWORD AtrLength)
{
	struct reader *r = reader_for(Lun);
	if (r == NULL)
		return IFD_COMMUNICATION_ERROR;
	unsigned char message;
	switch (Action) {
	case IFD_POWER_DOWN: message = MSG_POWER_OFF; break;
	case IFD_POWER_UP: message = MSG_POWER_ON; break;
	case IFD_RESET: message = MSG_RESET; break;
	default: return IFD_NOT_SUPPORTED;
	}
	RESPONSECODE rv = IFD_ERROR_POWER_ACTION;
	pthread_mutex_lock(&r->lock);
	if (send_message(r, &message, 1) != 0) {
		drop_peer(r);
		goto out;
	}
	if (Action == IFD_POWER_DOWN) {
		if (AtrLength != NULL)
			*AtrLength = 0;
		rv = IFD_SUCCESS;
		goto out;
	}
	if (refresh_atr(r, POLL_TIMEOUT_MS) != 0 || Atr == NULL || AtrLength == NULL || *AtrLength < r->atr_length)
		goto out;
	memcpy(Atr, r->atr, r->atr_length);
	*AtrLength = r->atr_length;
	rv = IFD_SUCCESS;
out:
	if (rv != IFD_SUCCESS && AtrLength != NULL)
		*AtrLength = 0;
	pthread_mutex_unlock(&r->lock);
	return rv;
}

RESPONSECODE IFDHTransmitToICC(DWORD Lun, SCARD_IO_HEADER SendPci, PUCHAR TxBuffer, DWORD TxLength,
	PUCHAR RxBuffer, PDWORD RxLength, PSCARD_IO_HEADER RecvPci)
{
	(void)SendPci;
	struct reader *r = reader_for(Lun);
	if (r == NULL || RxLength == NULL || RxBuffer == NULL || (TxBuffer == NULL && TxLength > 0))
		return IFD_COMMUNICATION_ERROR;
	DWORD capacity = *RxLength;
	*RxLength = 0;
	if (TxLength < 2) {
		/* A 1-byte message is one of vpcd's controls: a 1-byte APDU is refused here, wrong length. */
		if (capacity < 2)
			return IFD_ERROR_INSUFFICIENT_BUFFER;
		RxBuffer[0] = 0x67;
		RxBuffer[1] = 0x00;
		*RxLength = 2;
		return IFD_SUCCESS;
	}
	if (TxLength > FRAME_MAX)
		return IFD_COMMUNICATION_ERROR;
	RESPONSECODE rv = IFD_COMMUNICATION_ERROR;
	pthread_mutex_lock(&r->lock);
	long n = exchange(r, TxBuffer, TxLength, ANSWER_TIMEOUT_MS);
	if (n <= 0) {
		drop_peer(r);  /* an empty answer is vpcd's "card removed" */
	} else if ((DWORD)n > capacity) {
		rv = IFD_ERROR_INSUFFICIENT_BUFFER;
	} else {
		memcpy(RxBuffer, r->frame, (size_t)n);
		*RxLength = (DWORD)n;
		if (RecvPci != NULL)
			RecvPci->Protocol = SCARD_PROTOCOL_T1;
		rv = IFD_SUCCESS;
	}
	pthread_mutex_unlock(&r->lock);
	return rv;
}

RESPONSECODE IFDHControl(DWORD Lun, DWORD dwControlCode, PUCHAR TxBuffer, DWORD TxLength, PUCHAR RxBuffer,
	DWORD RxLength, LPDWORD pdwBytesReturned)
{
	struct reader *r = reader_for(Lun);
	if (pdwBytesReturned == NULL)
		return IFD_COMMUNICATION_ERROR;
	*pdwBytesReturned = 0;
	if (r == NULL || (TxBuffer == NULL && TxLength > 0) || TxLength > FRAME_MAX - 4)
		return IFD_COMMUNICATION_ERROR;
	if (dwControlCode > 0xFFFFFFFFUL)
		return IFD_ERROR_NOT_SUPPORTED;
	unsigned char *request = malloc(TxLength + 4);
	if (request == NULL)
		return IFD_COMMUNICATION_ERROR;
	request[0] = (unsigned char)(dwControlCode >> 24);
	request[1] = (unsigned char)(dwControlCode >> 16);
	request[2] = (unsigned char)(dwControlCode >> 8);
	request[3] = (unsigned char)dwControlCode;
	if (TxLength > 0)
		memcpy(request + 4, TxBuffer, TxLength);
	static const unsigned char announce = MSG_CONTROL;
	RESPONSECODE rv = IFD_COMMUNICATION_ERROR;
	pthread_mutex_lock(&r->lock);
	accept_peer(r);
	long n = exchange(r, &announce, 1, POLL_TIMEOUT_MS);
	if (n < 0)
		goto out;  /* no emulator: no reader firmware to answer */
	if (n != 1 || r->frame[0] != MSG_CONTROL) {
		rv = IFD_ERROR_NOT_SUPPORTED;  /* an emulator without the extension */
		goto out;
	}
	n = exchange(r, request, TxLength + 4, ANSWER_TIMEOUT_MS);
	if (n < 1)
		goto out;
	if (r->frame[0] == CONTROL_UNSUPPORTED && n == 1) {
		rv = IFD_ERROR_NOT_SUPPORTED;
	} else if (r->frame[0] != CONTROL_OK) {
		rv = IFD_COMMUNICATION_ERROR;
	} else if ((DWORD)(n - 1) > RxLength || (n > 1 && RxBuffer == NULL)) {
		rv = IFD_ERROR_INSUFFICIENT_BUFFER;
	} else {
		if (n > 1)
			memcpy(RxBuffer, r->frame + 1, (size_t)(n - 1));
		*pdwBytesReturned = (DWORD)(n - 1);
		rv = IFD_SUCCESS;
	}
out:
	pthread_mutex_unlock(&r->lock);
	free(request);
	return rv;
}

RESPONSECODE IFDHICCPresence(DWORD Lun)
{
	struct reader *r = reader_for(Lun);
	if (r == NULL)
		return IFD_COMMUNICATION_ERROR;
	pthread_mutex_lock(&r->lock);
	/* vpcd's order: a card whose connection just failed is reported gone; the next poll takes
	 * a waiting one, so pcscd always sees the removal between two cards. */
	RESPONSECODE rv = IFD_ICC_NOT_PRESENT;
	if (r->peer < 0)
		accept_peer(r);
	if (r->peer >= 0 && refresh_atr(r, POLL_TIMEOUT_MS) == 0)
		rv = IFD_ICC_PRESENT;
	pthread_mutex_unlock(&r->lock);
	return rv;
}
