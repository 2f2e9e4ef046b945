/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nf_tables through libnftnl (nft.h). A commit is built whole in one buffer as an
 * nfnetlink batch (begin, the deletions, the tables, chains and rules, end), sent in one
 * sendmsg and answered once: the kernel applies all of it or none. Each rule is the
 * expression list `nft` itself generates for the text of src/core/fwrules.h (as
 * `nft --debug=netlink` shows it), so `nft list ruleset` prints wg-quick's rules.
 */
#include "src/edge/nft.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

enum {
	/* Room for one message: a rule of a few expressions, a table or a chain. */
	MSG_BYTES = 1024,
	/* A table, its chains and its deletion, beyond the rules. */
	MSGS_PER_TABLE = 6,
	/* A dump's datagram (libmnl's MNL_SOCKET_BUFFER_SIZE is at most 8 KiB). */
	RX_BYTES = 16384,
	/* Where the destination address is in an IPv4 and in an IPv6 header. */
	IP4_DADDR_OFFSET = 16,
	IP6_DADDR_OFFSET = 24,
};

static const uint8_t nfproto[WG_FW_FAMILIES] = {
	[WG_FW_IP] = NFPROTO_IPV4, [WG_FW_IP6] = NFPROTO_IPV6, [WG_FW_INET] = NFPROTO_INET};

static const uint32_t nf_hook[] = {
	[WG_FW_HOOK_PREROUTING] = NF_INET_PRE_ROUTING,
	[WG_FW_HOOK_POSTROUTING] = NF_INET_POST_ROUTING,
	[WG_FW_HOOK_OUTPUT] = NF_INET_LOCAL_OUT,
};

bool wg_nft_unavailable(int err)
{
	return err == -EPROTONOSUPPORT || err == -EOPNOTSUPP || err == -EAFNOSUPPORT;
}

static int open_socket(struct mnl_socket **out)
{
	struct mnl_socket *sk = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	int ret;

	if (!sk)
		return errno ? -errno : -EIO;
	if (mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = errno ? -errno : -EIO;
		mnl_socket_close(sk);
		return ret;
	}
	*out = sk;
	return 0;
}

/* Reads answers until the kernel's ack, an error or the end of a dump. */
static int receive(struct mnl_socket *sk, mnl_cb_t cb, void *data)
{
	uint32_t portid = mnl_socket_get_portid(sk);
	char *buf = malloc(RX_BYTES);
	int ret = buf ? MNL_CB_OK : -ENOMEM;

	while (ret > MNL_CB_STOP) {
		ssize_t n = mnl_socket_recvfrom(sk, buf, RX_BYTES);

		if (n < 0) {
			ret = errno == EINTR ? MNL_CB_OK : -errno;
			continue;
		}
		ret = mnl_cb_run(buf, (size_t)n, 0, portid, cb, data);
		if (ret < 0)
			ret = -errno;
	}
	free(buf);
	return ret < 0 ? ret : 0;
}

/* --- finding the tables --- */

struct find {
	char names[WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE];
	unsigned int present;
};

static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct find *f = data;

	if (!t)
		return MNL_CB_ERROR;
	if (nftnl_table_nlmsg_parse(nlh, t) == 0) {
		uint32_t family = nftnl_table_get_u32(t, NFTNL_TABLE_FAMILY);
		const char *name = nftnl_table_get_str(t, NFTNL_TABLE_NAME);

		for (int i = 0; i < WG_FW_FAMILIES; i++)
			if (name && family == nfproto[i] && !strcmp(name, f->names[i]))
				f->present |= 1U << i;
	}
	nftnl_table_free(t);
	return MNL_CB_OK;
}

int wg_nft_find(const char *ifname, unsigned int *present)
{
	char buf[MSG_BYTES];
	struct mnl_socket *sk = NULL;
	struct nlmsghdr *nlh;
	struct find f = {0};
	int ret = open_socket(&sk);

	*present = 0;
	if (ret)
		return ret;
	wg_fwrules_table_names(ifname, f.names);
	nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETTABLE, NFPROTO_UNSPEC, NLM_F_DUMP, 1);
	if (mnl_socket_sendto(sk, nlh, nlh->nlmsg_len) < 0)
		ret = -errno;
	else
		ret = receive(sk, table_cb, &f);
	mnl_socket_close(sk);
	if (!ret)
		*present = f.present;
	return ret;
}

/* --- a leftover's fwmark --- */

struct mark {
	const char *table;
	uint32_t fwmark;
	bool found;
};

/* The value a `meta mark` load is compared with: postmangle's `mark FWMARK`. */
static void mark_of(const struct nftnl_rule *r, struct mark *m)
{
	struct nftnl_expr_iter *it = nftnl_expr_iter_create(r);
	bool after_mark = false;
	struct nftnl_expr *e;

	while (it && !m->found && (e = nftnl_expr_iter_next(it))) {
		const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
		uint32_t len = 0;
		const void *data;

		if (name && !strcmp(name, "cmp") && after_mark) {
			data = nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &len);
			if (data && len == sizeof(m->fwmark)) {
				memcpy(&m->fwmark, data, len);
				m->found = true;
			}
		}
		after_mark = name && !strcmp(name, "meta") &&
			     nftnl_expr_is_set(e, NFTNL_EXPR_META_DREG) &&
			     nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY) == NFT_META_MARK;
	}
	if (it)
		nftnl_expr_iter_destroy(it);
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct mark *m = data;

	if (!r)
		return MNL_CB_ERROR;
	if (nftnl_rule_nlmsg_parse(nlh, r) == 0) {
		const char *table = nftnl_rule_get_str(r, NFTNL_RULE_TABLE);
		const char *chain = nftnl_rule_get_str(r, NFTNL_RULE_CHAIN);

		if (table && chain && !strcmp(table, m->table) && !strcmp(chain, "postmangle"))
			mark_of(r, m);
	}
	nftnl_rule_free(r);
	return MNL_CB_OK;
}

int wg_nft_fwmark(const char *ifname, unsigned int present, uint32_t *fwmark)
{
	char names[WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE], buf[MSG_BYTES];
	struct mnl_socket *sk = NULL;
	int ret;

	wg_fwrules_table_names(ifname, names);
	for (int i = WG_FW_IP; i <= WG_FW_IP6; i++) {
		struct mark m = {.table = names[i]};
		struct nftnl_rule *r;
		struct nlmsghdr *nlh;

		if (!(present & (1U << i)))
			continue;
		r = nftnl_rule_alloc();
		if (!r)
			return -ENOMEM;
		nftnl_rule_set_str(r, NFTNL_RULE_TABLE, names[i]);
		nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, "postmangle");
		nlh = nftnl_nlmsg_build_hdr(buf, NFT_MSG_GETRULE, nfproto[i], NLM_F_DUMP, 1);
		nftnl_rule_nlmsg_build_payload(nlh, r);
		nftnl_rule_free(r);
		ret = open_socket(&sk);
		if (ret)
			return ret;
		if (mnl_socket_sendto(sk, nlh, nlh->nlmsg_len) < 0)
			ret = -errno;
		else
			ret = receive(sk, rule_cb, &m);
		mnl_socket_close(sk);
		if (ret)
			return ret;
		if (m.found) {
			*fwmark = m.fwmark;
			return 0;
		}
	}
	return -ENOENT;
}

/* --- the expressions of a rule --- */

static int add_expr(struct nftnl_rule *r, struct nftnl_expr *e)
{
	if (!e)
		return -ENOMEM;
	nftnl_rule_add_expr(r, e);
	return 0;
}

/* meta or ct: a key loaded into register 1 (reg_attr a DREG) or set from it (an SREG). */
static int keyed(struct nftnl_rule *r, const char *name, uint16_t key_attr, uint32_t key,
		 uint16_t reg_attr)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	if (e) {
		nftnl_expr_set_u32(e, key_attr, key);
		nftnl_expr_set_u32(e, reg_attr, NFT_REG_1);
	}
	return add_expr(r, e);
}

static int meta_load(struct nftnl_rule *r, uint32_t key)
{
	return keyed(r, "meta", NFTNL_EXPR_META_KEY, key, NFTNL_EXPR_META_DREG);
}

static int meta_set(struct nftnl_rule *r, uint32_t key)
{
	return keyed(r, "meta", NFTNL_EXPR_META_KEY, key, NFTNL_EXPR_META_SREG);
}

static int ct_load(struct nftnl_rule *r, uint32_t key)
{
	return keyed(r, "ct", NFTNL_EXPR_CT_KEY, key, NFTNL_EXPR_CT_DREG);
}

static int ct_set(struct nftnl_rule *r, uint32_t key)
{
	return keyed(r, "ct", NFTNL_EXPR_CT_KEY, key, NFTNL_EXPR_CT_SREG);
}

static int cmp(struct nftnl_rule *r, uint32_t op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
		nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	}
	return add_expr(r, e);
}

static int cmp_u8(struct nftnl_rule *r, uint32_t op, uint8_t v)
{
	return cmp(r, op, &v, sizeof(v));
}

static int cmp_u32(struct nftnl_rule *r, uint32_t op, uint32_t v)
{
	return cmp(r, op, &v, sizeof(v));
}

/* iifname/oifname compare all IFNAMSIZ bytes, zero-padded, as nft's. */
static int cmp_ifname(struct nftnl_rule *r, uint32_t op, const char *name)
{
	char padded[IFNAMSIZ] = {0};
	size_t n = strnlen(name, sizeof(padded) - 1);

	memcpy(padded, name, n);
	return cmp(r, op, padded, sizeof(padded));
}

static int payload(struct nftnl_rule *r, uint32_t base, uint32_t offset, uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	}
	return add_expr(r, e);
}

/* (reg 1 & mask) ^ 0: a prefix's bits of a loaded address */
static int bitwise_mask(struct nftnl_rule *r, const uint8_t *mask, uint32_t len)
{
	static const uint8_t zero[WG_IPADDR_V6_LEN];
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	}
	return add_expr(r, e);
}

/*
 * ip|ip6 daddr NET/CIDR (a full-length CIDR: one address), as nft compares a prefix: its
 * whole bytes alone when it ends on a byte, else the whole address masked.
 */
static int daddr_in(struct nftnl_rule *r, const struct wg_ipaddr *net, unsigned int cidr)
{
	bool v4 = net->family == AF_INET;
	uint32_t len = v4 ? WG_IPADDR_V4_LEN : WG_IPADDR_V6_LEN;
	uint32_t offset = v4 ? IP4_DADDR_OFFSET : IP6_DADDR_OFFSET;
	uint8_t mask[WG_IPADDR_V6_LEN] = {0};
	int ret;

	if (cidr % 8 == 0) {
		ret = payload(r, NFT_PAYLOAD_NETWORK_HEADER, offset, cidr / 8);
		return ret ?: cmp(r, NFT_CMP_EQ, net->bytes, cidr / 8);
	}
	memset(mask, 0xff, cidr / 8);
	mask[cidr / 8] = (uint8_t)(0xff << (8 - cidr % 8));
	ret = payload(r, NFT_PAYLOAD_NETWORK_HEADER, offset, len);
	ret = ret ?: bitwise_mask(r, mask, len);
	return ret ?: cmp(r, NFT_CMP_EQ, net->bytes, len);
}

/* ip|ip6 daddr NET/CIDR in an inet table: the family first. */
static int inet_daddr_in(struct nftnl_rule *r, const struct wg_ipaddr *net, unsigned int cidr)
{
	int ret = meta_load(r, NFT_META_NFPROTO);

	ret = ret ?: cmp_u8(r, NFT_CMP_EQ, net->family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6);
	return ret ?: daddr_in(r, net, cidr);
}

/* fib saddr|daddr type != local */
static int fib_not_local(struct nftnl_rule *r, uint32_t flags)
{
	struct nftnl_expr *e = nftnl_expr_alloc("fib");
	int ret;

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
		nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, flags);
	}
	ret = add_expr(r, e);
	return ret ?: cmp_u32(r, NFT_CMP_NEQ, RTN_LOCAL);
}

static int verdict(struct nftnl_rule *r, int code)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)code);
	}
	return add_expr(r, e);
}

static int reject_port_unreachable(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("reject");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMPX_UNREACH);
		nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, NFT_REJECT_ICMPX_PORT_UNREACH);
	}
	return add_expr(r, e);
}

/* iifname != IF ip daddr ADDR fib saddr type != local drop */
static int drop_spoofed(struct nftnl_rule *r, const struct wg_fw_plan *plan,
			const struct wg_ipaddr *a)
{
	int ret = meta_load(r, NFT_META_IIFNAME);

	ret = ret ?: cmp_ifname(r, NFT_CMP_NEQ, plan->ifname);
	ret = ret ?: daddr_in(r, a, wg_ipaddr_bits(a->family));
	ret = ret ?: fib_not_local(r, NFTA_FIB_F_SADDR);
	return ret ?: verdict(r, NF_DROP);
}

static int udp_only(struct nftnl_rule *r)
{
	int ret = meta_load(r, NFT_META_L4PROTO);

	return ret ?: cmp_u8(r, NFT_CMP_EQ, IPPROTO_UDP);
}

static int rule_exprs(struct nftnl_rule *r, const struct wg_fw_plan *plan,
		      const struct wg_fw_rule *rule)
{
	int ret = 0;

	switch (rule->kind) {
	case WG_FW_DROP_SPOOFED:
		return drop_spoofed(r, plan, &rule->addr);
	case WG_FW_SAVE_MARK: /* meta l4proto udp mark FWMARK ct mark set mark */
		ret = udp_only(r);
		ret = ret ?: meta_load(r, NFT_META_MARK);
		ret = ret ?: cmp_u32(r, NFT_CMP_EQ, plan->fwmark);
		ret = ret ?: meta_load(r, NFT_META_MARK);
		return ret ?: ct_set(r, NFT_CT_MARK);
	case WG_FW_RESTORE_MARK: /* meta l4proto udp meta mark set ct mark */
		ret = udp_only(r);
		ret = ret ?: ct_load(r, NFT_CT_MARK);
		return ret ?: meta_set(r, NFT_META_MARK);
	case WG_FW_KS_LOOPBACK: /* oifname "lo" accept */
		ret = meta_load(r, NFT_META_OIFNAME);
		ret = ret ?: cmp_ifname(r, NFT_CMP_EQ, "lo");
		return ret ?: verdict(r, NF_ACCEPT);
	case WG_FW_KS_NEIGHBOUR: /* icmpv6 type 133-137 accept */
		ret = meta_load(r, NFT_META_L4PROTO);
		ret = ret ?: cmp_u8(r, NFT_CMP_EQ, IPPROTO_ICMPV6);
		ret = ret ?: payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1);
		ret = ret ?: cmp_u8(r, NFT_CMP_GTE, WG_FW_ICMPV6_ND_FIRST);
		ret = ret ?: cmp_u8(r, NFT_CMP_LTE, WG_FW_ICMPV6_ND_LAST);
		return ret ?: verdict(r, NF_ACCEPT);
	case WG_FW_KS_LAN: /* ip daddr NET accept, ip6 daddr NET accept */
		ret = inet_daddr_in(r, &rule->addr, rule->cidr);
		return ret ?: verdict(r, NF_ACCEPT);
	case WG_FW_KS_REJECT: /* oifname != IF meta mark != FWMARK fib daddr type != local */
		ret = meta_load(r, NFT_META_OIFNAME);
		ret = ret ?: cmp_ifname(r, NFT_CMP_NEQ, plan->ifname);
		ret = ret ?: meta_load(r, NFT_META_MARK);
		ret = ret ?: cmp_u32(r, NFT_CMP_NEQ, plan->fwmark);
		ret = ret ?: fib_not_local(r, NFTA_FIB_F_DADDR);
		return ret ?: reject_port_unreachable(r);
	}
	return -EINVAL;
}

/* --- the batch --- */

struct batch {
	struct mnl_nlmsg_batch *b;
	uint32_t seq;
	struct nlmsghdr *last; /* gets NLM_F_ACK: its answer ends the transaction */
};

static struct nlmsghdr *next_hdr(struct batch *b, uint16_t type, uint8_t family, uint16_t flags)
{
	struct nlmsghdr *nlh = nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b->b), type, family,
						     flags, b->seq++);

	b->last = nlh;
	return nlh;
}

static int put_table(struct batch *b, const struct wg_fw_table *tab, bool del)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (!t)
		return -ENOMEM;
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, nfproto[tab->family]);
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, tab->name);
	nlh = next_hdr(b, del ? NFT_MSG_DELTABLE : NFT_MSG_NEWTABLE, nfproto[tab->family],
		       del ? 0 : NLM_F_CREATE);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	mnl_nlmsg_batch_next(b->b);
	return 0;
}

static int put_chain(struct batch *b, const struct wg_fw_table *tab, const struct wg_fw_chain *ch)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	if (!c)
		return -ENOMEM;
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, tab->name);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, ch->name);
	nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, nf_hook[ch->hook]);
	nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, ch->priority);
	nlh = next_hdr(b, NFT_MSG_NEWCHAIN, nfproto[tab->family], NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	mnl_nlmsg_batch_next(b->b);
	return 0;
}

static int put_rule(struct batch *b, const struct wg_fw_plan *plan, const struct wg_fw_rule *rule)
{
	const struct wg_fw_table *tab = &plan->tables[rule->table];
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *nlh;
	int ret;

	if (!r)
		return -ENOMEM;
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, nfproto[tab->family]);
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, tab->name);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, tab->chains[rule->chain].name);
	ret = rule_exprs(r, plan, rule);
	if (!ret) {
		nlh = next_hdr(b, NFT_MSG_NEWRULE, nfproto[tab->family],
			       NLM_F_APPEND | NLM_F_CREATE);
		nftnl_rule_nlmsg_build_payload(nlh, r);
		mnl_nlmsg_batch_next(b->b);
	}
	nftnl_rule_free(r);
	return ret;
}

static int build(struct batch *b, const char *ifname, unsigned int remove,
		 const struct wg_fw_plan *plan)
{
	char names[WG_FW_FAMILIES][WG_FW_TABLE_NAME_SIZE];
	int ret = 0;

	wg_fwrules_table_names(ifname, names);
	for (int i = 0; !ret && i < WG_FW_FAMILIES; i++) {
		struct wg_fw_table t = {.family = (enum wg_fw_family)i};

		if (!(remove & (1U << i)))
			continue;
		memcpy(t.name, names[i], sizeof(t.name));
		ret = put_table(b, &t, true);
	}
	for (size_t i = 0; plan && !ret && i < plan->n_tables; i++) {
		ret = put_table(b, &plan->tables[i], false);
		for (size_t c = 0; !ret && c < plan->tables[i].n_chains; c++)
			ret = put_chain(b, &plan->tables[i], &plan->tables[i].chains[c]);
	}
	for (size_t i = 0; plan && !ret && i < plan->n_rules; i++)
		ret = put_rule(b, plan, &plan->rules[i]);
	return ret;
}

int wg_nft_commit(const char *ifname, unsigned int remove, const struct wg_fw_plan *plan)
{
	size_t n = MSGS_PER_TABLE * WG_FW_FAMILIES + (plan ? plan->n_rules : 0) + 2;
	/* libmnl lets the last message run past the limit: twice the room */
	size_t size = 2 * n * MSG_BYTES;
	char *buf = malloc(size);
	struct batch b = {.seq = 1};
	struct mnl_socket *sk = NULL;
	int ret = buf ? 0 : -ENOMEM;

	if (!ret && !remove && (!plan || !plan->n_tables)) {
		free(buf);
		return 0;
	}
	b.b = buf ? mnl_nlmsg_batch_start(buf, size / 2) : NULL;
	if (!ret && !b.b)
		ret = -ENOMEM;
	if (!ret) {
		nftnl_batch_begin(mnl_nlmsg_batch_current(b.b), b.seq++);
		mnl_nlmsg_batch_next(b.b);
		ret = build(&b, ifname, remove, plan);
	}
	if (!ret) {
		b.last->nlmsg_flags |= NLM_F_ACK;
		nftnl_batch_end(mnl_nlmsg_batch_current(b.b), b.seq++);
		mnl_nlmsg_batch_next(b.b);
		ret = open_socket(&sk);
	}
	if (!ret && mnl_socket_sendto(sk, mnl_nlmsg_batch_head(b.b),
				      mnl_nlmsg_batch_size(b.b)) < 0)
		ret = -errno;
	if (!ret)
		ret = receive(sk, NULL, NULL);
	if (sk)
		mnl_socket_close(sk);
	if (b.b)
		mnl_nlmsg_batch_stop(b.b);
	free(buf);
	return ret;
}
