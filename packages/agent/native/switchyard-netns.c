/*
 * switchyard-netns: the agent's long-lived helper for work inside network namespaces that Node.js
 * cannot enter (setns is per thread; Node has no binding for it). Started once by the agent
 * (src/host-network/netns-helper.ts), it reads one request per line on stdin and answers one line
 * on stdout, so a pod's setup costs a few syscalls instead of an nsenter/sh/ip/ethtool chain.
 *
 * Request (fields separated by tabs; the agent validated every value):
 *   ID  podlink  NODE_NETNS|-  HOST_IF  POD_NETNS  IFNAME  ADDRESS  PREFIX  GATEWAY  TXOFF(0|1)
 *     In NODE_NETNS (or the helper's own namespace for -): HOST_IF's arp_ignore=8, forwarding=0,
 *     disable_ipv6=1. In POD_NETNS: IFNAME's disable_ipv6=1, lo up, ADDRESS/PREFIX on IFNAME,
 *     IFNAME up, default route via GATEWAY on IFNAME (replaced), and IFNAME's transmit checksum
 *     offload off when TXOFF. HOST_IF's offload is left as created: only OVS sends on it, through
 *     a packet socket, with checksums already complete (docs/agent.md, "Checksum offload").
 *   Dual-stack: three more fields, ADDRESS6 PREFIX6 GATEWAY6: IFNAME's disable_ipv6=0 instead,
 *     ADDRESS6/PREFIX6 on IFNAME without duplicate address detection (IFA_F_NODAD: the node's to
 *     give, and DAD would hold it tentative for a second), the IPv6 default route via GATEWAY6.
 *   IPv6-only: ADDRESS, PREFIX and GATEWAY are `-` and the three IPv6 fields follow: no IPv4
 *     address or route, the rest as dual-stack.
 *   ID  podveth  (the ten fields above)  MTU  MAC  [ADDRESS6 PREFIX6 GATEWAY6]
 *     The same, after creating the veth pair in NODE_NETNS with one RTM_NEWLINK: HOST_IF up and
 *     promiscuous with MTU, its peer IFNAME (MTU, MAC) directly in POD_NETNS. The pod end is brought
 *     up within microseconds of the creation (the kernel refuses a veth peer created up: ENOTCONN),
 *     so ovs-vswitchd, which reconfigures every bridge on each link event in its namespace, sees the
 *     creation and the host end's carrier as one burst (docs/agent.md, "Where the ADD waits").
 *   ID  podna  POD_NETNS  IFNAME  ADDRESS6
 *     In POD_NETNS: one unsolicited Neighbor Advertisement (RFC 4861 7.2.6) for ADDRESS6 from
 *     IFNAME to all nodes (ff02::1), Override set, IFNAME's MAC as the target link-layer address,
 *     so neighbours holding a stale entry for a reused address learn the pod's MAC (IPv6's
 *     gratuitous ARP). Sent once the pod's port is in the bridge.
 *   ID  nodena  NODE_NETNS|-  DEV  ADDRESS6
 *     In NODE_NETNS (or the helper's own namespace for -): the same advertisement for ADDRESS6 from
 *     DEV, for an address the node answers for by proxy NDP (a Service external IP) and does not
 *     hold: DEV's MAC as the target link-layer address, and the source an address of DEV the kernel
 *     chooses (ADDRESS6 is not local, and RFC 4861 7.2.2 wants the source to be the interface's).
 * Answer: `ID ok`, `ID err STEP: REASON`, or for a refused creation `ID nlerr ERRNO_NAME REASON`.
 * The helper always returns to its own namespace.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <netinet/icmp6.h>
#include <linux/sockios.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static char failure[512];
/* Set when the veth creation itself was refused: the kernel's errno, answered by name. */
static int create_errno;

/* Records why a step failed (errno's text) and returns -1. */
static int last_err;
static int fail(const char *step, const char *what, int err) {
  last_err = err;
  snprintf(failure, sizeof failure, "%s %s: %s", step, what, strerror(err));
  return -1;
}

static int write_file(const char *path, const char *value, const char *step) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fail(step, path, errno);
  ssize_t n = write(fd, value, strlen(value));
  int err = errno;
  close(fd);
  return n == (ssize_t)strlen(value) ? 0 : fail(step, path, n < 0 ? err : EIO);
}

static int sysctl_dev(const char *family, const char *dev, const char *key, const char *value, const char *step) {
  char path[256];
  snprintf(path, sizeof path, "/proc/sys/net/%s/conf/%s/%s", family, dev, key);
  return write_file(path, value, step);
}

/* One interface ioctl on `dev` in the current namespace (`ifr` in and out); -1 with errno set on failure. */
static int dev_ioctl(const char *dev, unsigned long request, struct ifreq *ifr) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  strncpy(ifr->ifr_name, dev, IFNAMSIZ - 1);
  int r = ioctl(s, request, ifr);
  int err = errno;
  close(s);
  errno = err;
  return r;
}

/* Transmit checksum offload off (what `ethtool -K DEV tx off` does), in the current namespace. */
static int tx_off(const char *dev, const char *step) {
  struct ethtool_value ev = {.cmd = ETHTOOL_STXCSUM, .data = 0};
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_data = (void *)&ev;
  return dev_ioctl(dev, SIOCETHTOOL, &ifr) < 0 ? fail(step, dev, errno) : 0;
}

/* A device's index in the current namespace (SIOCGIFINDEX; net/if.h would clash with linux/if.h). */
static int index_of(const char *dev) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  return dev_ioctl(dev, SIOCGIFINDEX, &ifr) < 0 ? 0 : ifr.ifr_ifindex;
}

struct nlreq {
  struct nlmsghdr n;
  union {
    struct ifinfomsg i;
    struct ifaddrmsg a;
    struct rtmsg r;
  } u;
  char attrs[512];
};

static void add_attr(struct nlreq *q, unsigned short type, const void *data, unsigned short len) {
  struct rtattr *a = (struct rtattr *)((char *)q + NLMSG_ALIGN(q->n.nlmsg_len));
  a->rta_type = type;
  a->rta_len = (unsigned short)RTA_LENGTH(len);
  if (len) memcpy(RTA_DATA(a), data, len);
  q->n.nlmsg_len = NLMSG_ALIGN(q->n.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Opens a nested attribute; close it with nest_end. */
static struct rtattr *nest_start(struct nlreq *q, unsigned short type) {
  struct rtattr *a = (struct rtattr *)((char *)q + NLMSG_ALIGN(q->n.nlmsg_len));
  add_attr(q, type | NLA_F_NESTED, NULL, 0);
  return a;
}

static void nest_end(struct nlreq *q, struct rtattr *a) {
  a->rta_len = (unsigned short)((char *)q + NLMSG_ALIGN(q->n.nlmsg_len) - (char *)a);
}

/* Sends one request on a netlink socket of the current namespace and waits for its ack. */
static int nl_talk(int fd, struct nlreq *q, const char *step, const char *what) {
  static unsigned seq;
  q->n.nlmsg_seq = ++seq;
  q->n.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
  if (send(fd, q, q->n.nlmsg_len, 0) < 0) return fail(step, what, errno);
  char buf[4096];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(step, what, errno);
    }
    for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != q->n.nlmsg_seq || h->nlmsg_type != NLMSG_ERROR) continue;
      int err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
      return err == 0 ? 0 : fail(step, what, -err);
    }
  }
}

static int link_up(int fd, int index, const char *dev, const char *step) {
  struct nlreq q;
  memset(&q, 0, sizeof q);
  q.n.nlmsg_len = NLMSG_LENGTH(sizeof q.u.i);
  q.n.nlmsg_type = RTM_NEWLINK;
  q.u.i.ifi_family = AF_UNSPEC;
  q.u.i.ifi_index = index;
  q.u.i.ifi_flags = IFF_UP;
  q.u.i.ifi_change = IFF_UP;
  char what[64];
  snprintf(what, sizeof what, "link %s up", dev);
  return nl_talk(fd, &q, step, what);
}

static int addr_replace(int fd, int index, struct in_addr ip, int prefix, const char *step) {
  struct nlreq q;
  memset(&q, 0, sizeof q);
  q.n.nlmsg_len = NLMSG_LENGTH(sizeof q.u.a);
  q.n.nlmsg_type = RTM_NEWADDR;
  q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
  q.u.a.ifa_family = AF_INET;
  q.u.a.ifa_prefixlen = (unsigned char)prefix;
  q.u.a.ifa_scope = RT_SCOPE_UNIVERSE;
  q.u.a.ifa_index = (unsigned)index;
  add_attr(&q, IFA_LOCAL, &ip, sizeof ip);
  add_attr(&q, IFA_ADDRESS, &ip, sizeof ip);
  return nl_talk(fd, &q, step, "address");
}

static int addr6_replace(int fd, int index, const struct in6_addr *ip, int prefix, const char *step) {
  struct nlreq q;
  memset(&q, 0, sizeof q);
  q.n.nlmsg_len = NLMSG_LENGTH(sizeof q.u.a);
  q.n.nlmsg_type = RTM_NEWADDR;
  q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
  q.u.a.ifa_family = AF_INET6;
  q.u.a.ifa_prefixlen = (unsigned char)prefix;
  q.u.a.ifa_flags = IFA_F_NODAD;
  q.u.a.ifa_scope = RT_SCOPE_UNIVERSE;
  q.u.a.ifa_index = (unsigned)index;
  add_attr(&q, IFA_LOCAL, ip, sizeof *ip);
  add_attr(&q, IFA_ADDRESS, ip, sizeof *ip);
  return nl_talk(fd, &q, step, "IPv6 address");
}

static int default_route6(int fd, int index, const struct in6_addr *gw, const char *step) {
  struct nlreq q;
  memset(&q, 0, sizeof q);
  q.n.nlmsg_len = NLMSG_LENGTH(sizeof q.u.r);
  q.n.nlmsg_type = RTM_NEWROUTE;
  q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
  q.u.r.rtm_family = AF_INET6;
  q.u.r.rtm_table = RT_TABLE_MAIN;
  q.u.r.rtm_protocol = RTPROT_BOOT;
  q.u.r.rtm_scope = RT_SCOPE_UNIVERSE;
  q.u.r.rtm_type = RTN_UNICAST;
  add_attr(&q, RTA_GATEWAY, gw, sizeof *gw);
  int oif = index;
  add_attr(&q, RTA_OIF, &oif, sizeof oif);
  return nl_talk(fd, &q, step, "IPv6 default route");
}

static int default_route(int fd, int index, struct in_addr gw, const char *step) {
  struct nlreq q;
  memset(&q, 0, sizeof q);
  q.n.nlmsg_len = NLMSG_LENGTH(sizeof q.u.r);
  q.n.nlmsg_type = RTM_NEWROUTE;
  q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
  q.u.r.rtm_family = AF_INET;
  q.u.r.rtm_table = RT_TABLE_MAIN;
  q.u.r.rtm_protocol = RTPROT_BOOT;
  q.u.r.rtm_scope = RT_SCOPE_UNIVERSE;
  q.u.r.rtm_type = RTN_UNICAST;
  add_attr(&q, RTA_GATEWAY, &gw, sizeof gw);
  int oif = index;
  add_attr(&q, RTA_OIF, &oif, sizeof oif);
  return nl_talk(fd, &q, step, "default route");
}

/*
 * The veth pair in the current namespace (the node's): DEV up and promiscuous (as ovs-vswitchd
 * would set it when attaching it: already set, its flag change sends no link event), the peer
 * PEER_DEV directly in the namespace of PEER_NS_FD, with its MAC; both with MTU.
 */
static int create_veth(const char *dev, const char *peer_dev, int mtu, const unsigned char mac[6], int peer_ns_fd) {
  const char *step = "create veth";
  struct nlreq q;
  memset(&q, 0, sizeof q);
  q.n.nlmsg_len = NLMSG_LENGTH(sizeof q.u.i);
  q.n.nlmsg_type = RTM_NEWLINK;
  q.n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
  q.u.i.ifi_family = AF_UNSPEC;
  q.u.i.ifi_flags = IFF_UP | IFF_PROMISC;
  q.u.i.ifi_change = IFF_UP | IFF_PROMISC;
  add_attr(&q, IFLA_IFNAME, dev, (unsigned short)(strlen(dev) + 1));
  add_attr(&q, IFLA_MTU, &mtu, sizeof mtu);
  struct rtattr *linkinfo = nest_start(&q, IFLA_LINKINFO);
  add_attr(&q, IFLA_INFO_KIND, "veth", 5);
  struct rtattr *data = nest_start(&q, IFLA_INFO_DATA);
  /* VETH_INFO_PEER: an ifinfomsg (zeroed: a peer created up is refused) and the peer's attributes. */
  struct rtattr *peer = (struct rtattr *)((char *)&q + NLMSG_ALIGN(q.n.nlmsg_len));
  struct ifinfomsg peer_info;
  memset(&peer_info, 0, sizeof peer_info);
  add_attr(&q, VETH_INFO_PEER, &peer_info, sizeof peer_info);
  add_attr(&q, IFLA_IFNAME, peer_dev, (unsigned short)(strlen(peer_dev) + 1));
  add_attr(&q, IFLA_MTU, &mtu, sizeof mtu);
  add_attr(&q, IFLA_ADDRESS, mac, 6);
  add_attr(&q, IFLA_NET_NS_FD, &peer_ns_fd, sizeof peer_ns_fd);
  nest_end(&q, peer);
  nest_end(&q, data);
  nest_end(&q, linkinfo);
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return fail(step, "netlink socket", errno);
  int r = nl_talk(fd, &q, step, dev);
  if (r < 0) create_errno = last_err;
  close(fd);
  return r;
}

static int enter(const char *path, const char *step) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(step, path, errno);
  int r = setns(fd, CLONE_NEWNET);
  int err = errno;
  close(fd);
  return r < 0 ? fail(step, path, err) : 0;
}

/*
 * The node side: quiet sysctls of the host end, in the current namespace. No offload change: it
 * would be one more link event (NETDEV_FEAT_CHANGE) in the namespace where ovs-vswitchd runs, and
 * each is a full reconfiguration there.
 */
static int host_side(const char *dev) {
  const char *step = "host side";
  return sysctl_dev("ipv4", dev, "arp_ignore", "8", step) || sysctl_dev("ipv4", dev, "forwarding", "0", step) || sysctl_dev("ipv6", dev, "disable_ipv6", "1", step) ? -1 : 0;
}

/* A dual-stack or IPv6-only pod's IPv6 address and gateway (v6 == 0: IPv4 only; v4 == 0: IPv6 only). */
struct pod6 {
  int v6, v4;
  struct in6_addr ip, gw;
  int prefix;
};

/*
 * The pod side, in the current namespace (the pod's): IPv6 off (on for a dual-stack pod), then the
 * link up first (its carrier is the host end's, a link event in the node's namespace: as close to
 * the creation as it can be), then lo, the address, the default route, the IPv6 address and default
 * route of a dual-stack pod, and the offload.
 */
static int pod_side(const char *dev, struct in_addr ip, int prefix, struct in_addr gw, const struct pod6 *six, int txoff) {
  const char *step = "pod side";
  if (sysctl_dev("ipv6", dev, "disable_ipv6", six->v6 ? "0" : "1", step)) return -1;
  int index = index_of(dev);
  if (index == 0) return fail(step, dev, errno);
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return fail(step, "netlink socket", errno);
  int r = link_up(fd, index, dev, step) || link_up(fd, index_of("lo"), "lo", step) ? -1 : 0;
  if (r == 0 && six->v4) r = addr_replace(fd, index, ip, prefix, step) || default_route(fd, index, gw, step) ? -1 : 0;
  if (r == 0 && six->v6) r = addr6_replace(fd, index, &six->ip, six->prefix, step) || default_route6(fd, index, &six->gw, step) ? -1 : 0;
  close(fd);
  if (r == 0 && txoff) r = tx_off(dev, step);
  return r;
}

/* `aa:bb:cc:dd:ee:ff` into 6 bytes; -1 when malformed. */
static int parse_mac(const char *text, unsigned char mac[6]) {
  unsigned v[6];
  char end;
  if (sscanf(text, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6) return -1;
  for (int i = 0; i < 6; i++) mac[i] = (unsigned char)v[i];
  return 0;
}

/*
 * podlink (f has 10 fields) or podveth (12: MTU and MAC follow, and the veth is created first);
 * `extra` 3: a dual-stack pod's ADDRESS6 PREFIX6 GATEWAY6 follow.
 */
static int podlink(int home, char **f, int create, int extra) {
  const char *node = f[2], *host_if = f[3], *pod_ns = f[4], *ifname = f[5];
  struct in_addr ip, gw;
  memset(&ip, 0, sizeof ip);
  memset(&gw, 0, sizeof gw);
  int prefix = atoi(f[7]), txoff = strcmp(f[9], "1") == 0;
  int mtu = create ? atoi(f[10]) : 0;
  unsigned char mac[6];
  /* IPv6-only: the IPv4 fields are `-` and the IPv6 ones must follow. */
  int v4 = !(strcmp(f[6], "-") == 0 && strcmp(f[7], "-") == 0 && strcmp(f[8], "-") == 0 && extra);
  if ((v4 && (inet_pton(AF_INET, f[6], &ip) != 1 || inet_pton(AF_INET, f[8], &gw) != 1 || prefix < 0 || prefix > 32)) || (create && (mtu < 68 || parse_mac(f[11], mac) < 0))) {
    snprintf(failure, sizeof failure, "request: bad address, prefix, gateway, MTU or MAC");
    return -1;
  }
  struct pod6 six;
  memset(&six, 0, sizeof six);
  six.v4 = v4;
  if (extra) {
    char **g = f + (create ? 12 : 10);
    six.v6 = 1;
    six.prefix = atoi(g[1]);
    if (inet_pton(AF_INET6, g[0], &six.ip) != 1 || inet_pton(AF_INET6, g[2], &six.gw) != 1 || six.prefix < 1 || six.prefix > 128) {
      snprintf(failure, sizeof failure, "request: bad IPv6 address, prefix or gateway");
      return -1;
    }
  }
  int pod_fd = open(pod_ns, O_RDONLY | O_CLOEXEC);
  if (pod_fd < 0) return fail("enter pod namespace", pod_ns, errno);
  int r = 0;
  if (strcmp(node, "-") != 0) r = enter(node, "enter node namespace");
  if (r == 0 && create) r = create_veth(host_if, ifname, mtu, mac, pod_fd);
  if (r == 0) r = host_side(host_if);
  if (r == 0 && setns(pod_fd, CLONE_NEWNET) < 0) r = fail("enter pod namespace", pod_ns, errno);
  if (r == 0) r = pod_side(ifname, ip, prefix, gw, &six, txoff);
  close(pod_fd);
  if (setns(home, CLONE_NEWNET) < 0) {
    /* Stuck in another namespace: every later request would act in the wrong place. */
    fprintf(stderr, "switchyard-netns: cannot return to its own namespace: %s\n", strerror(errno));
    exit(3);
  }
  return r;
}

/* The device's MAC (SIOCGIFHWADDR) in the current namespace. */
static int mac_of(const char *dev, unsigned char mac[6], const char *step) {
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  if (dev_ioctl(dev, SIOCGIFHWADDR, &ifr) < 0) return fail(step, dev, errno);
  memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
  return 0;
}

/*
 * One unsolicited Neighbor Advertisement for `ip` from `dev` to ff02::1, in the current namespace:
 * a raw ICMPv6 socket (the kernel fills in the checksum), hop limit 255 as RFC 4861 requires, the
 * source bound to `ip` when `bind_ip` (a pod's own address), else the kernel's choice for `dev`.
 */
static int send_na(const char *dev, const struct in6_addr *ip, int bind_ip) {
  const char *step = "neighbor advertisement";
  unsigned char mac[6];
  if (mac_of(dev, mac, step)) return -1;
  int index = index_of(dev);
  if (index == 0) return fail(step, dev, errno);
  int s = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6);
  if (s < 0) return fail(step, "raw ICMPv6 socket", errno);
  int hops = 255;
  struct sockaddr_in6 src = {.sin6_family = AF_INET6, .sin6_addr = *ip};
  int r = 0;
  if (setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof hops) < 0 || setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_IF, &index, sizeof index) < 0)
    r = fail(step, "socket options", errno);
  else if (bind_ip && bind(s, (struct sockaddr *)&src, sizeof src) < 0)
    r = fail(step, "bind to the pod's address", errno);
  if (r == 0) {
    struct {
      struct nd_neighbor_advert na;
      struct nd_opt_hdr opt;
      unsigned char lladdr[6];
    } __attribute__((packed)) pkt;
    memset(&pkt, 0, sizeof pkt);
    pkt.na.nd_na_type = ND_NEIGHBOR_ADVERT;
    pkt.na.nd_na_flags_reserved = ND_NA_FLAG_OVERRIDE;
    pkt.na.nd_na_target = *ip;
    pkt.opt.nd_opt_type = ND_OPT_TARGET_LINKADDR;
    pkt.opt.nd_opt_len = 1; /* in units of 8 bytes: the 2-byte header and the 6-byte MAC */
    memcpy(pkt.lladdr, mac, 6);
    struct sockaddr_in6 dst = {.sin6_family = AF_INET6, .sin6_scope_id = (uint32_t)index};
    inet_pton(AF_INET6, "ff02::1", &dst.sin6_addr);
    if (sendto(s, &pkt, sizeof pkt, 0, (struct sockaddr *)&dst, sizeof dst) != (ssize_t)sizeof pkt) r = fail(step, "sendto ff02::1", errno);
  }
  close(s);
  return r;
}

/* podna: POD_NETNS IFNAME ADDRESS6 (f[2..4]). */
static int podna(int home, char **f) {
  struct in6_addr ip;
  if (inet_pton(AF_INET6, f[4], &ip) != 1) {
    snprintf(failure, sizeof failure, "request: bad IPv6 address");
    return -1;
  }
  int r = enter(f[2], "enter pod namespace");
  if (r == 0) r = send_na(f[3], &ip, 1);
  if (setns(home, CLONE_NEWNET) < 0) {
    fprintf(stderr, "switchyard-netns: cannot return to its own namespace: %s\n", strerror(errno));
    exit(3);
  }
  return r;
}

/* nodena: NODE_NETNS|- DEV ADDRESS6 (f[2..4]). */
static int nodena(int home, char **f) {
  struct in6_addr ip;
  if (inet_pton(AF_INET6, f[4], &ip) != 1) {
    snprintf(failure, sizeof failure, "request: bad IPv6 address");
    return -1;
  }
  int away = strcmp(f[2], "-") != 0;
  int r = away ? enter(f[2], "enter node namespace") : 0;
  if (r == 0) r = send_na(f[3], &ip, 0);
  if (away && setns(home, CLONE_NEWNET) < 0) {
    fprintf(stderr, "switchyard-netns: cannot return to its own namespace: %s\n", strerror(errno));
    exit(3);
  }
  return r;
}

int main(void) {
  int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) {
    perror("switchyard-netns: /proc/self/ns/net");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) > 0) {
    if (line[n - 1] == '\n') line[n - 1] = 0;
    char *f[16];
    int nf = 0;
    for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && nf < 16; t = strtok_r(NULL, "\t", &save)) f[nf++] = t;
    if (nf < 2) continue;
    failure[0] = 0;
    create_errno = 0;
    int r;
    if (strcmp(f[1], "podlink") == 0 && (nf == 10 || nf == 13)) r = podlink(home, f, 0, nf == 13);
    else if (strcmp(f[1], "podveth") == 0 && (nf == 12 || nf == 15)) r = podlink(home, f, 1, nf == 15);
    else if (strcmp(f[1], "podna") == 0 && nf == 5) r = podna(home, f);
    else if (strcmp(f[1], "nodena") == 0 && nf == 5) r = nodena(home, f);
    else {
      snprintf(failure, sizeof failure, "request: unknown operation or wrong field count (%s, %d fields)", f[1], nf);
      r = -1;
    }
    if (r == 0) printf("%s\tok\n", f[0]);
    else if (create_errno) printf("%s\tnlerr\t%s\t%s\n", f[0], strerrorname_np(create_errno) ? strerrorname_np(create_errno) : "EIO", failure);
    else printf("%s\terr\t%s\n", f[0], failure);
  }
  free(line);
  return 0;
}
