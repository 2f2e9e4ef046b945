/* SPDX-License-Identifier: GPL-2.0-only */
#include "src/core/keypair.h"

#include <errno.h>
#include <string.h>

#include "crypto/ct.h"
#include "src/core/clock.h"

int wg_keypair_set_keys(struct wg_keypair *kp, const uint8_t send_key[NOISE_SYMMETRIC_KEY_LEN],
			const uint8_t recv_key[NOISE_SYMMETRIC_KEY_LEN])
{
	int err;

	memmove(kp->send_key, send_key, sizeof(kp->send_key));
	memmove(kp->recv_key, recv_key, sizeof(kp->recv_key));
	err = cw_aead_key_init(&kp->send_aead, kp->send_key);
	if (!err) {
		err = cw_aead_key_init(&kp->recv_aead, kp->recv_key);
		if (err)
			cw_aead_key_wipe(&kp->send_aead);
	}
	if (err) {
		cw_memzero(kp->send_key, sizeof(kp->send_key));
		cw_memzero(kp->recv_key, sizeof(kp->recv_key));
	}
	return err;
}

size_t wg_keypair_padded_len(size_t plain_len, unsigned int mtu)
{
	size_t last_unit = plain_len, padded;

	padded = (last_unit + MESSAGE_PADDING_MULTIPLE - 1) &
		 ~(size_t)(MESSAGE_PADDING_MULTIPLE - 1);
	if (!mtu)
		return padded;
	/* A plaintext beyond the MTU is padded as its last MTU-sized piece would be, so
	 * that clamping to the MTU cannot make the padding negative. */
	if (last_unit > mtu) {
		last_unit %= mtu;
		padded = (last_unit + MESSAGE_PADDING_MULTIPLE - 1) &
			 ~(size_t)(MESSAGE_PADDING_MULTIPLE - 1);
	}
	padded = WG_MIN(padded, (size_t)mtu);
	return plain_len + (padded - last_unit);
}

bool wg_keypair_can_send(const struct wg_keypair *kp, uint64_t now_ns)
{
	return kp && kp->in_use && kp->send_valid &&
	       !wg_clock_has_expired(kp->birthdate_ns, REJECT_AFTER_TIME_NS, now_ns) &&
	       kp->send_counter < REJECT_AFTER_MESSAGES;
}

int wg_keypair_encrypt(struct wg_keypair *kp, uint8_t *msg, size_t plain_len, size_t cap,
		       unsigned int mtu, uint64_t now_ns, size_t *msg_len)
{
	struct message_data *hdr = (struct message_data *)msg;
	size_t padded = wg_keypair_padded_len(plain_len, mtu);
	size_t total = message_data_len(padded);
	uint64_t nonce;

	if (!wg_keypair_can_send(kp, now_ns)) {
		if (kp && kp->in_use)
			kp->send_valid = false;
		return -ENOKEY;
	}
	if (total > cap || total > MESSAGE_MAXIMUM_LENGTH)
		return -EMSGSIZE;
	nonce = kp->send_counter++;
	memset(hdr->encrypted_data + plain_len, 0, padded - plain_len);
	wg_message_header_set(&hdr->header, MESSAGE_DATA);
	wg_put_le32(hdr->key_idx, kp->remote_index);
	wg_put_le64(hdr->counter, nonce);
	if (!cw_aead_key_seal(&kp->send_aead, hdr->encrypted_data, hdr->encrypted_data, padded,
			      NULL, 0, nonce)) {
		kp->send_valid = false;
		return -ENOKEY;
	}
	*msg_len = total;
	return 0;
}

enum wg_data_verdict wg_keypair_decrypt(struct wg_keypair *kp, uint8_t *msg, size_t msg_len,
					uint64_t now_ns, size_t *plain_len)
{
	struct message_data *hdr = (struct message_data *)msg;
	uint64_t counter;

	if (msg_len < MESSAGE_MINIMUM_LENGTH || wg_le32(hdr->header.type_le) != MESSAGE_DATA ||
	    !kp || wg_le32(hdr->key_idx) != kp->local_index)
		return DATA_MALFORMED;
	if (!kp->in_use || !kp->recv_valid ||
	    wg_clock_has_expired(kp->birthdate_ns, REJECT_AFTER_TIME_NS, now_ns) ||
	    wg_replay_exhausted(&kp->replay)) {
		kp->recv_valid = false;
		return DATA_KEYPAIR_INVALID;
	}
	counter = wg_le64(hdr->counter);
	if (!cw_aead_key_open(&kp->recv_aead, hdr->encrypted_data, hdr->encrypted_data,
			      msg_len - MESSAGE_DATA_HEADER_LEN, NULL, 0, counter))
		return DATA_AUTH_FAILED;
	/* Only an authentic counter may move the window. */
	if (!wg_replay_accept(&kp->replay, counter))
		return DATA_REPLAYED;
	*plain_len = msg_len - MESSAGE_MINIMUM_LENGTH;
	return DATA_OK;
}

bool wg_keypair_should_rekey_on_send(const struct wg_keypair *kp, uint64_t now_ns)
{
	return kp && kp->in_use && kp->send_valid &&
	       (kp->send_counter > REKEY_AFTER_MESSAGES ||
		(kp->i_am_the_initiator &&
		 wg_clock_has_expired(kp->birthdate_ns, REKEY_AFTER_TIME_NS, now_ns)));
}

bool wg_keypair_should_rekey_on_receive(const struct wg_keypair *kp, uint64_t now_ns)
{
	return kp && kp->in_use && kp->send_valid && kp->i_am_the_initiator &&
	       wg_clock_has_expired(kp->birthdate_ns, REKEY_ON_RECEIVE_AFTER_TIME_NS, now_ns);
}

void wg_keypair_clear(struct wg_keypair *kp)
{
	cw_aead_key_wipe(&kp->send_aead);
	cw_aead_key_wipe(&kp->recv_aead);
	cw_memzero(kp, sizeof(*kp));
}
