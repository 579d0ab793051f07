/**
 * `@switchyard/ipam/cidr`: pure CIDR and address math for IPv4 and IPv6 (no I/O), on ip-address.
 * One address type ({@link Ip}), one block type ({@link Cidr}), one range type ({@link IpRange}),
 * and interval sets ({@link IpSet}) for except-difference and aggregation.
 * @packageDocumentation
 */
export { CidrError, type CidrErrorCode } from './errors';
export { Ip, parseIp, formatIp, familyBits, familyMax, type IpFamily } from './ip';
export { Cidr, IpRange, parseCidr, rangeToCidrs, MAX_SPLIT, type ParseCidrOptions } from './cidr';
export { IpSet, cidrExcept, aggregate, parseAddressLike, type AddressLike } from './set';
