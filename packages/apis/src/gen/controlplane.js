/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-mixed-operators, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars, default-case, jsdoc/require-param*/
import $protobuf from "protobufjs/minimal.js";

// Common aliases
const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;
const $Object = $util.global.Object, $undefined = $util.global.undefined, $Error = $util.global.Error, $RangeError = $util.global.RangeError;

// Exported root namespace
const $root = $protobuf.roots["switchyard-apis"] || ($protobuf.roots["switchyard-apis"] = {});

export const switchyard = $root.switchyard = (() => {

    /**
     * Namespace switchyard.
     * @exports switchyard
     * @namespace
     */
    const switchyard = {};

    switchyard.controlplane = (function() {

        /**
         * Namespace controlplane.
         * @memberof switchyard
         * @namespace
         */
        const controlplane = {};

        controlplane.v1 = (function() {

            /**
             * Namespace v1.
             * @memberof switchyard.controlplane
             * @namespace
             */
            const v1 = {};

            /**
             * NetworkPolicyType enum.
             * @name switchyard.controlplane.v1.NetworkPolicyType
             * @enum {number}
             * @property {number} NETWORK_POLICY_TYPE_UNSPECIFIED=0 NETWORK_POLICY_TYPE_UNSPECIFIED value
             * @property {number} K8S_NETWORK_POLICY=1 K8S_NETWORK_POLICY value
             * @property {number} ANTREA_CLUSTER_NETWORK_POLICY=2 ANTREA_CLUSTER_NETWORK_POLICY value
             * @property {number} ANTREA_NETWORK_POLICY=3 ANTREA_NETWORK_POLICY value
             * @property {number} ADMIN_NETWORK_POLICY=4 ADMIN_NETWORK_POLICY value
             * @property {number} BASELINE_ADMIN_NETWORK_POLICY=5 BASELINE_ADMIN_NETWORK_POLICY value
             */
            v1.NetworkPolicyType = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "NETWORK_POLICY_TYPE_UNSPECIFIED"] = 0;
                values[valuesById[1] = "K8S_NETWORK_POLICY"] = 1;
                values[valuesById[2] = "ANTREA_CLUSTER_NETWORK_POLICY"] = 2;
                values[valuesById[3] = "ANTREA_NETWORK_POLICY"] = 3;
                values[valuesById[4] = "ADMIN_NETWORK_POLICY"] = 4;
                values[valuesById[5] = "BASELINE_ADMIN_NETWORK_POLICY"] = 5;
                return values;
            })();

            /**
             * PolicyType enum.
             * @name switchyard.controlplane.v1.PolicyType
             * @enum {number}
             * @property {number} POLICY_TYPE_UNSPECIFIED=0 POLICY_TYPE_UNSPECIFIED value
             * @property {number} POLICY_TYPE_INGRESS=1 POLICY_TYPE_INGRESS value
             * @property {number} POLICY_TYPE_EGRESS=2 POLICY_TYPE_EGRESS value
             */
            v1.PolicyType = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "POLICY_TYPE_UNSPECIFIED"] = 0;
                values[valuesById[1] = "POLICY_TYPE_INGRESS"] = 1;
                values[valuesById[2] = "POLICY_TYPE_EGRESS"] = 2;
                return values;
            })();

            /**
             * Direction enum.
             * @name switchyard.controlplane.v1.Direction
             * @enum {number}
             * @property {number} DIRECTION_UNSPECIFIED=0 DIRECTION_UNSPECIFIED value
             * @property {number} DIRECTION_IN=1 DIRECTION_IN value
             * @property {number} DIRECTION_OUT=2 DIRECTION_OUT value
             */
            v1.Direction = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "DIRECTION_UNSPECIFIED"] = 0;
                values[valuesById[1] = "DIRECTION_IN"] = 1;
                values[valuesById[2] = "DIRECTION_OUT"] = 2;
                return values;
            })();

            /**
             * RuleAction enum.
             * @name switchyard.controlplane.v1.RuleAction
             * @enum {number}
             * @property {number} RULE_ACTION_UNSPECIFIED=0 RULE_ACTION_UNSPECIFIED value
             * @property {number} RULE_ACTION_ALLOW=1 RULE_ACTION_ALLOW value
             * @property {number} RULE_ACTION_DROP=2 RULE_ACTION_DROP value
             * @property {number} RULE_ACTION_REJECT=3 RULE_ACTION_REJECT value
             * @property {number} RULE_ACTION_PASS=4 RULE_ACTION_PASS value
             */
            v1.RuleAction = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "RULE_ACTION_UNSPECIFIED"] = 0;
                values[valuesById[1] = "RULE_ACTION_ALLOW"] = 1;
                values[valuesById[2] = "RULE_ACTION_DROP"] = 2;
                values[valuesById[3] = "RULE_ACTION_REJECT"] = 3;
                values[valuesById[4] = "RULE_ACTION_PASS"] = 4;
                return values;
            })();

            /**
             * Protocol enum.
             * @name switchyard.controlplane.v1.Protocol
             * @enum {number}
             * @property {number} PROTOCOL_UNSPECIFIED=0 PROTOCOL_UNSPECIFIED value
             * @property {number} PROTOCOL_TCP=1 PROTOCOL_TCP value
             * @property {number} PROTOCOL_UDP=2 PROTOCOL_UDP value
             * @property {number} PROTOCOL_SCTP=3 PROTOCOL_SCTP value
             * @property {number} PROTOCOL_ICMP=4 PROTOCOL_ICMP value
             * @property {number} PROTOCOL_IGMP=5 PROTOCOL_IGMP value
             */
            v1.Protocol = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "PROTOCOL_UNSPECIFIED"] = 0;
                values[valuesById[1] = "PROTOCOL_TCP"] = 1;
                values[valuesById[2] = "PROTOCOL_UDP"] = 2;
                values[valuesById[3] = "PROTOCOL_SCTP"] = 3;
                values[valuesById[4] = "PROTOCOL_ICMP"] = 4;
                values[valuesById[5] = "PROTOCOL_IGMP"] = 5;
                return values;
            })();

            /**
             * ServiceScope enum.
             * @name switchyard.controlplane.v1.ServiceScope
             * @enum {number}
             * @property {number} SERVICE_SCOPE_UNSPECIFIED=0 SERVICE_SCOPE_UNSPECIFIED value
             * @property {number} SERVICE_SCOPE_CLUSTER=1 SERVICE_SCOPE_CLUSTER value
             * @property {number} SERVICE_SCOPE_CLUSTER_SET=2 SERVICE_SCOPE_CLUSTER_SET value
             */
            v1.ServiceScope = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "SERVICE_SCOPE_UNSPECIFIED"] = 0;
                values[valuesById[1] = "SERVICE_SCOPE_CLUSTER"] = 1;
                values[valuesById[2] = "SERVICE_SCOPE_CLUSTER_SET"] = 2;
                return values;
            })();

            /**
             * EventType enum.
             * @name switchyard.controlplane.v1.EventType
             * @enum {number}
             * @property {number} EVENT_TYPE_UNSPECIFIED=0 EVENT_TYPE_UNSPECIFIED value
             * @property {number} ADDED=1 ADDED value
             * @property {number} MODIFIED=2 MODIFIED value
             * @property {number} DELETED=3 DELETED value
             * @property {number} BOOKMARK=4 BOOKMARK value
             * @property {number} ERROR=5 ERROR value
             */
            v1.EventType = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "EVENT_TYPE_UNSPECIFIED"] = 0;
                values[valuesById[1] = "ADDED"] = 1;
                values[valuesById[2] = "MODIFIED"] = 2;
                values[valuesById[3] = "DELETED"] = 3;
                values[valuesById[4] = "BOOKMARK"] = 4;
                values[valuesById[5] = "ERROR"] = 5;
                return values;
            })();

            /**
             * ConditionStatus enum.
             * @name switchyard.controlplane.v1.ConditionStatus
             * @enum {number}
             * @property {number} CONDITION_STATUS_UNSPECIFIED=0 CONDITION_STATUS_UNSPECIFIED value
             * @property {number} CONDITION_STATUS_TRUE=1 CONDITION_STATUS_TRUE value
             * @property {number} CONDITION_STATUS_FALSE=2 CONDITION_STATUS_FALSE value
             * @property {number} CONDITION_STATUS_UNKNOWN=3 CONDITION_STATUS_UNKNOWN value
             */
            v1.ConditionStatus = (function() {
                const valuesById = $Object.create(null), values = $Object.create(valuesById);
                values[valuesById[0] = "CONDITION_STATUS_UNSPECIFIED"] = 0;
                values[valuesById[1] = "CONDITION_STATUS_TRUE"] = 1;
                values[valuesById[2] = "CONDITION_STATUS_FALSE"] = 2;
                values[valuesById[3] = "CONDITION_STATUS_UNKNOWN"] = 3;
                return values;
            })();

            v1.NetworkPolicyReference = (function() {

                /**
                 * Properties of a NetworkPolicyReference.
                 * @typedef {Object} switchyard.controlplane.v1.NetworkPolicyReference.$Properties
                 * @property {switchyard.controlplane.v1.NetworkPolicyType|null} [type] NetworkPolicyReference type
                 * @property {string|null} [namespace] NetworkPolicyReference namespace
                 * @property {string|null} [name] NetworkPolicyReference name
                 * @property {string|null} [uid] NetworkPolicyReference uid
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NetworkPolicyReference.
                 * @memberof switchyard.controlplane.v1
                 * @interface INetworkPolicyReference
                 * @augments switchyard.controlplane.v1.NetworkPolicyReference.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NetworkPolicyReference.$Properties instead.
                 */

                /**
                 * Shape of a NetworkPolicyReference.
                 * @typedef {switchyard.controlplane.v1.NetworkPolicyReference.$Properties} switchyard.controlplane.v1.NetworkPolicyReference.$Shape
                 */

                /**
                 * Constructs a new NetworkPolicyReference.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NetworkPolicyReference.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NetworkPolicyReference.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NetworkPolicyReference = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NetworkPolicyReference type.
                 * @member {switchyard.controlplane.v1.NetworkPolicyType} type
                 * @memberof switchyard.controlplane.v1.NetworkPolicyReference
                 * @instance
                 */
                NetworkPolicyReference.prototype.type = 0;

                /**
                 * NetworkPolicyReference namespace.
                 * @member {string} namespace
                 * @memberof switchyard.controlplane.v1.NetworkPolicyReference
                 * @instance
                 */
                NetworkPolicyReference.prototype.namespace = "";

                /**
                 * NetworkPolicyReference name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.NetworkPolicyReference
                 * @instance
                 */
                NetworkPolicyReference.prototype.name = "";

                /**
                 * NetworkPolicyReference uid.
                 * @member {string} uid
                 * @memberof switchyard.controlplane.v1.NetworkPolicyReference
                 * @instance
                 */
                NetworkPolicyReference.prototype.uid = "";

                /**
                 * Encodes the specified NetworkPolicyReference message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyReference.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyReference
                 * @static
                 * @param {switchyard.controlplane.v1.NetworkPolicyReference.$Properties} message NetworkPolicyReference message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NetworkPolicyReference.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.type != null && $Object.hasOwnProperty.call(message, "type") && message.type !== 0)
                        writer.uint32(/* id 1, wireType 0 =*/8).int32(message.type);
                    if (message.namespace != null && $Object.hasOwnProperty.call(message, "namespace") && message.namespace !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.namespace);
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 3, wireType 2 =*/26).string(message.name);
                    if (message.uid != null && $Object.hasOwnProperty.call(message, "uid") && message.uid !== "")
                        writer.uint32(/* id 4, wireType 2 =*/34).string(message.uid);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NetworkPolicyReference message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyReference
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyReference & switchyard.controlplane.v1.NetworkPolicyReference.$Shape} NetworkPolicyReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NetworkPolicyReference.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NetworkPolicyReference();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.type = value;
                                else
                                    delete message.type;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.namespace = value;
                                else
                                    delete message.namespace;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.uid = value;
                                else
                                    delete message.uid;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NetworkPolicyReference;
            })();

            v1.IPNet = (function() {

                /**
                 * Properties of a IPNet.
                 * @typedef {Object} switchyard.controlplane.v1.IPNet.$Properties
                 * @property {Uint8Array|null} [ip] IPNet ip
                 * @property {number|null} [prefixLength] IPNet prefixLength
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a IPNet.
                 * @memberof switchyard.controlplane.v1
                 * @interface IIPNet
                 * @augments switchyard.controlplane.v1.IPNet.$Properties
                 * @deprecated Use switchyard.controlplane.v1.IPNet.$Properties instead.
                 */

                /**
                 * Shape of a IPNet.
                 * @typedef {switchyard.controlplane.v1.IPNet.$Properties} switchyard.controlplane.v1.IPNet.$Shape
                 */

                /**
                 * Constructs a new IPNet.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a IPNet.
                 * @constructor
                 * @param {switchyard.controlplane.v1.IPNet.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const IPNet = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * IPNet ip.
                 * @member {Uint8Array} ip
                 * @memberof switchyard.controlplane.v1.IPNet
                 * @instance
                 */
                IPNet.prototype.ip = $util.newBuffer([]);

                /**
                 * IPNet prefixLength.
                 * @member {number} prefixLength
                 * @memberof switchyard.controlplane.v1.IPNet
                 * @instance
                 */
                IPNet.prototype.prefixLength = 0;

                /**
                 * Encodes the specified IPNet message. Does not implicitly {@link switchyard.controlplane.v1.IPNet.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.IPNet
                 * @static
                 * @param {switchyard.controlplane.v1.IPNet.$Properties} message IPNet message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                IPNet.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.ip != null && $Object.hasOwnProperty.call(message, "ip") && message.ip.length)
                        writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.ip);
                    if (message.prefixLength != null && $Object.hasOwnProperty.call(message, "prefixLength") && message.prefixLength !== 0)
                        writer.uint32(/* id 2, wireType 0 =*/16).int32(message.prefixLength);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a IPNet message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.IPNet
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.IPNet & switchyard.controlplane.v1.IPNet.$Shape} IPNet
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                IPNet.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.IPNet();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.bytes()).length)
                                    message.ip = value;
                                else
                                    delete message.ip;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.prefixLength = value;
                                else
                                    delete message.prefixLength;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return IPNet;
            })();

            v1.IPBlock = (function() {

                /**
                 * Properties of a IPBlock.
                 * @typedef {Object} switchyard.controlplane.v1.IPBlock.$Properties
                 * @property {switchyard.controlplane.v1.IPNet.$Properties|null} [cidr] IPBlock cidr
                 * @property {Array.<switchyard.controlplane.v1.IPNet.$Properties>|null} [except] IPBlock except
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a IPBlock.
                 * @memberof switchyard.controlplane.v1
                 * @interface IIPBlock
                 * @augments switchyard.controlplane.v1.IPBlock.$Properties
                 * @deprecated Use switchyard.controlplane.v1.IPBlock.$Properties instead.
                 */

                /**
                 * Shape of a IPBlock.
                 * @typedef {switchyard.controlplane.v1.IPBlock.$Properties} switchyard.controlplane.v1.IPBlock.$Shape
                 */

                /**
                 * Constructs a new IPBlock.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a IPBlock.
                 * @constructor
                 * @param {switchyard.controlplane.v1.IPBlock.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const IPBlock = function (properties) {
                    this.except = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * IPBlock cidr.
                 * @member {switchyard.controlplane.v1.IPNet.$Properties|null|undefined} cidr
                 * @memberof switchyard.controlplane.v1.IPBlock
                 * @instance
                 */
                IPBlock.prototype.cidr = null;

                /**
                 * IPBlock except.
                 * @member {Array.<switchyard.controlplane.v1.IPNet.$Properties>} except
                 * @memberof switchyard.controlplane.v1.IPBlock
                 * @instance
                 */
                IPBlock.prototype.except = $util.emptyArray;

                /**
                 * Encodes the specified IPBlock message. Does not implicitly {@link switchyard.controlplane.v1.IPBlock.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.IPBlock
                 * @static
                 * @param {switchyard.controlplane.v1.IPBlock.$Properties} message IPBlock message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                IPBlock.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.cidr != null && $Object.hasOwnProperty.call(message, "cidr"))
                        $root.switchyard.controlplane.v1.IPNet.encode(message.cidr, writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                    if (message.except != null && message.except.length)
                        for (let i = 0; i < message.except.length; ++i)
                            $root.switchyard.controlplane.v1.IPNet.encode(message.except[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a IPBlock message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.IPBlock
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.IPBlock & switchyard.controlplane.v1.IPBlock.$Shape} IPBlock
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                IPBlock.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.IPBlock();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                message.cidr = $root.switchyard.controlplane.v1.IPNet.decode(reader, reader.size(), $undefined, _depth + 1, message.cidr);
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.except && message.except.length))
                                    message.except = [];
                                message.except.push($root.switchyard.controlplane.v1.IPNet.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return IPBlock;
            })();

            v1.Service = (function() {

                /**
                 * Properties of a Service.
                 * @typedef {Object} switchyard.controlplane.v1.Service.$Properties
                 * @property {switchyard.controlplane.v1.Protocol|null} [protocol] Service protocol
                 * @property {number|null} [portNumber] Service portNumber
                 * @property {string|null} [portName] Service portName
                 * @property {number|null} [endPort] Service endPort
                 * @property {number|null} [srcPort] Service srcPort
                 * @property {number|null} [srcEndPort] Service srcEndPort
                 * @property {number|null} [icmpType] Service icmpType
                 * @property {number|null} [icmpCode] Service icmpCode
                 * @property {number|null} [igmpType] Service igmpType
                 * @property {Uint8Array|null} [groupAddress] Service groupAddress
                 * @property {"portNumber"|"portName"} [port] Service port
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a Service.
                 * @memberof switchyard.controlplane.v1
                 * @interface IService
                 * @augments switchyard.controlplane.v1.Service.$Properties
                 * @deprecated Use switchyard.controlplane.v1.Service.$Properties instead.
                 */

                /**
                 * Narrowed shape of a Service.
                 * @typedef {{
                 *   protocol?: switchyard.controlplane.v1.Protocol|null;
                 *   portNumber?: number|null;
                 *   portName?: string|null;
                 *   endPort?: number|null;
                 *   srcPort?: number|null;
                 *   srcEndPort?: number|null;
                 *   icmpType?: number|null;
                 *   icmpCode?: number|null;
                 *   igmpType?: number|null;
                 *   groupAddress?: Uint8Array|null;
                 *   $unknowns?: Array.<Uint8Array>;
                 * } & (
                 *   ({ port?: undefined; portNumber?: null; portName?: null }|{ port?: "portNumber"; portNumber: number; portName?: null }|{ port?: "portName"; portNumber?: null; portName: string })
                 * )} switchyard.controlplane.v1.Service.$Shape
                 */

                /**
                 * Constructs a new Service.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a Service.
                 * @constructor
                 * @param {switchyard.controlplane.v1.Service.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const Service = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * Service protocol.
                 * @member {switchyard.controlplane.v1.Protocol} protocol
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.protocol = 0;

                /**
                 * Service portNumber.
                 * @member {number|null|undefined} portNumber
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.portNumber = null;

                /**
                 * Service portName.
                 * @member {string|null|undefined} portName
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.portName = null;

                /**
                 * Service endPort.
                 * @member {number|null|undefined} endPort
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.endPort = null;

                /**
                 * Service srcPort.
                 * @member {number|null|undefined} srcPort
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.srcPort = null;

                /**
                 * Service srcEndPort.
                 * @member {number|null|undefined} srcEndPort
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.srcEndPort = null;

                /**
                 * Service icmpType.
                 * @member {number|null|undefined} icmpType
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.icmpType = null;

                /**
                 * Service icmpCode.
                 * @member {number|null|undefined} icmpCode
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.icmpCode = null;

                /**
                 * Service igmpType.
                 * @member {number|null|undefined} igmpType
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.igmpType = null;

                /**
                 * Service groupAddress.
                 * @member {Uint8Array|null|undefined} groupAddress
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                Service.prototype.groupAddress = null;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                /**
                 * Service port.
                 * @member {"portNumber"|"portName"|undefined} port
                 * @memberof switchyard.controlplane.v1.Service
                 * @instance
                 */
                $Object.defineProperty(Service.prototype, "port", {
                    get: $util.oneOfGetter($oneOfFields = ["portNumber", "portName"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_endPort", {
                    get: $util.oneOfGetter($oneOfFields = ["endPort"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_srcPort", {
                    get: $util.oneOfGetter($oneOfFields = ["srcPort"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_srcEndPort", {
                    get: $util.oneOfGetter($oneOfFields = ["srcEndPort"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_icmpType", {
                    get: $util.oneOfGetter($oneOfFields = ["icmpType"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_icmpCode", {
                    get: $util.oneOfGetter($oneOfFields = ["icmpCode"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_igmpType", {
                    get: $util.oneOfGetter($oneOfFields = ["igmpType"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(Service.prototype, "_groupAddress", {
                    get: $util.oneOfGetter($oneOfFields = ["groupAddress"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified Service message. Does not implicitly {@link switchyard.controlplane.v1.Service.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.Service
                 * @static
                 * @param {switchyard.controlplane.v1.Service.$Properties} message Service message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                Service.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.protocol != null && $Object.hasOwnProperty.call(message, "protocol") && message.protocol !== 0)
                        writer.uint32(/* id 1, wireType 0 =*/8).int32(message.protocol);
                    if (message.portNumber != null && $Object.hasOwnProperty.call(message, "portNumber"))
                        writer.uint32(/* id 2, wireType 0 =*/16).int32(message.portNumber);
                    if (message.portName != null && $Object.hasOwnProperty.call(message, "portName"))
                        writer.uint32(/* id 3, wireType 2 =*/26).string(message.portName);
                    if (message.endPort != null && $Object.hasOwnProperty.call(message, "endPort"))
                        writer.uint32(/* id 4, wireType 0 =*/32).int32(message.endPort);
                    if (message.srcPort != null && $Object.hasOwnProperty.call(message, "srcPort"))
                        writer.uint32(/* id 5, wireType 0 =*/40).int32(message.srcPort);
                    if (message.srcEndPort != null && $Object.hasOwnProperty.call(message, "srcEndPort"))
                        writer.uint32(/* id 6, wireType 0 =*/48).int32(message.srcEndPort);
                    if (message.icmpType != null && $Object.hasOwnProperty.call(message, "icmpType"))
                        writer.uint32(/* id 7, wireType 0 =*/56).int32(message.icmpType);
                    if (message.icmpCode != null && $Object.hasOwnProperty.call(message, "icmpCode"))
                        writer.uint32(/* id 8, wireType 0 =*/64).int32(message.icmpCode);
                    if (message.igmpType != null && $Object.hasOwnProperty.call(message, "igmpType"))
                        writer.uint32(/* id 9, wireType 0 =*/72).int32(message.igmpType);
                    if (message.groupAddress != null && $Object.hasOwnProperty.call(message, "groupAddress"))
                        writer.uint32(/* id 10, wireType 2 =*/82).bytes(message.groupAddress);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a Service message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.Service
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.Service & switchyard.controlplane.v1.Service.$Shape} Service
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                Service.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.Service();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.protocol = value;
                                else
                                    delete message.protocol;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 0)
                                    break;
                                message.portNumber = reader.int32();
                                message.port = "portNumber";
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                message.portName = reader.stringVerify();
                                message.port = "portName";
                                continue;
                            }
                        case 4: {
                                if (wireType !== 0)
                                    break;
                                message.endPort = reader.int32();
                                message._endPort = "endPort";
                                continue;
                            }
                        case 5: {
                                if (wireType !== 0)
                                    break;
                                message.srcPort = reader.int32();
                                message._srcPort = "srcPort";
                                continue;
                            }
                        case 6: {
                                if (wireType !== 0)
                                    break;
                                message.srcEndPort = reader.int32();
                                message._srcEndPort = "srcEndPort";
                                continue;
                            }
                        case 7: {
                                if (wireType !== 0)
                                    break;
                                message.icmpType = reader.int32();
                                message._icmpType = "icmpType";
                                continue;
                            }
                        case 8: {
                                if (wireType !== 0)
                                    break;
                                message.icmpCode = reader.int32();
                                message._icmpCode = "icmpCode";
                                continue;
                            }
                        case 9: {
                                if (wireType !== 0)
                                    break;
                                message.igmpType = reader.int32();
                                message._igmpType = "igmpType";
                                continue;
                            }
                        case 10: {
                                if (wireType !== 2)
                                    break;
                                message.groupAddress = reader.bytes();
                                message._groupAddress = "groupAddress";
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return Service;
            })();

            v1.ServiceReference = (function() {

                /**
                 * Properties of a ServiceReference.
                 * @typedef {Object} switchyard.controlplane.v1.ServiceReference.$Properties
                 * @property {string|null} [name] ServiceReference name
                 * @property {string|null} [namespace] ServiceReference namespace
                 * @property {switchyard.controlplane.v1.ServiceScope|null} [scope] ServiceReference scope
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a ServiceReference.
                 * @memberof switchyard.controlplane.v1
                 * @interface IServiceReference
                 * @augments switchyard.controlplane.v1.ServiceReference.$Properties
                 * @deprecated Use switchyard.controlplane.v1.ServiceReference.$Properties instead.
                 */

                /**
                 * Shape of a ServiceReference.
                 * @typedef {switchyard.controlplane.v1.ServiceReference.$Properties} switchyard.controlplane.v1.ServiceReference.$Shape
                 */

                /**
                 * Constructs a new ServiceReference.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a ServiceReference.
                 * @constructor
                 * @param {switchyard.controlplane.v1.ServiceReference.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const ServiceReference = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * ServiceReference name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.ServiceReference
                 * @instance
                 */
                ServiceReference.prototype.name = "";

                /**
                 * ServiceReference namespace.
                 * @member {string} namespace
                 * @memberof switchyard.controlplane.v1.ServiceReference
                 * @instance
                 */
                ServiceReference.prototype.namespace = "";

                /**
                 * ServiceReference scope.
                 * @member {switchyard.controlplane.v1.ServiceScope} scope
                 * @memberof switchyard.controlplane.v1.ServiceReference
                 * @instance
                 */
                ServiceReference.prototype.scope = 0;

                /**
                 * Encodes the specified ServiceReference message. Does not implicitly {@link switchyard.controlplane.v1.ServiceReference.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.ServiceReference
                 * @static
                 * @param {switchyard.controlplane.v1.ServiceReference.$Properties} message ServiceReference message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                ServiceReference.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.namespace != null && $Object.hasOwnProperty.call(message, "namespace") && message.namespace !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.namespace);
                    if (message.scope != null && $Object.hasOwnProperty.call(message, "scope") && message.scope !== 0)
                        writer.uint32(/* id 3, wireType 0 =*/24).int32(message.scope);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a ServiceReference message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.ServiceReference
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.ServiceReference & switchyard.controlplane.v1.ServiceReference.$Shape} ServiceReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                ServiceReference.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.ServiceReference();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.namespace = value;
                                else
                                    delete message.namespace;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.scope = value;
                                else
                                    delete message.scope;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return ServiceReference;
            })();

            v1.NetworkPolicyPeer = (function() {

                /**
                 * Properties of a NetworkPolicyPeer.
                 * @typedef {Object} switchyard.controlplane.v1.NetworkPolicyPeer.$Properties
                 * @property {Array.<string>|null} [addressGroups] NetworkPolicyPeer addressGroups
                 * @property {Array.<switchyard.controlplane.v1.IPBlock.$Properties>|null} [ipBlocks] NetworkPolicyPeer ipBlocks
                 * @property {Array.<string>|null} [fqdns] NetworkPolicyPeer fqdns
                 * @property {Array.<switchyard.controlplane.v1.ServiceReference.$Properties>|null} [toServices] NetworkPolicyPeer toServices
                 * @property {Array.<number>|null} [labelIdentities] NetworkPolicyPeer labelIdentities
                 * @property {boolean|null} [hasFqdns] NetworkPolicyPeer hasFqdns
                 * @property {boolean|null} [hasToServices] NetworkPolicyPeer hasToServices
                 * @property {boolean|null} [hasLabelIdentities] NetworkPolicyPeer hasLabelIdentities
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NetworkPolicyPeer.
                 * @memberof switchyard.controlplane.v1
                 * @interface INetworkPolicyPeer
                 * @augments switchyard.controlplane.v1.NetworkPolicyPeer.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NetworkPolicyPeer.$Properties instead.
                 */

                /**
                 * Shape of a NetworkPolicyPeer.
                 * @typedef {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties} switchyard.controlplane.v1.NetworkPolicyPeer.$Shape
                 */

                /**
                 * Constructs a new NetworkPolicyPeer.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NetworkPolicyPeer.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NetworkPolicyPeer = function (properties) {
                    this.addressGroups = [];
                    this.ipBlocks = [];
                    this.fqdns = [];
                    this.toServices = [];
                    this.labelIdentities = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NetworkPolicyPeer addressGroups.
                 * @member {Array.<string>} addressGroups
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.addressGroups = $util.emptyArray;

                /**
                 * NetworkPolicyPeer ipBlocks.
                 * @member {Array.<switchyard.controlplane.v1.IPBlock.$Properties>} ipBlocks
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.ipBlocks = $util.emptyArray;

                /**
                 * NetworkPolicyPeer fqdns.
                 * @member {Array.<string>} fqdns
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.fqdns = $util.emptyArray;

                /**
                 * NetworkPolicyPeer toServices.
                 * @member {Array.<switchyard.controlplane.v1.ServiceReference.$Properties>} toServices
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.toServices = $util.emptyArray;

                /**
                 * NetworkPolicyPeer labelIdentities.
                 * @member {Array.<number>} labelIdentities
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.labelIdentities = $util.emptyArray;

                /**
                 * NetworkPolicyPeer hasFqdns.
                 * @member {boolean} hasFqdns
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.hasFqdns = false;

                /**
                 * NetworkPolicyPeer hasToServices.
                 * @member {boolean} hasToServices
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.hasToServices = false;

                /**
                 * NetworkPolicyPeer hasLabelIdentities.
                 * @member {boolean} hasLabelIdentities
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @instance
                 */
                NetworkPolicyPeer.prototype.hasLabelIdentities = false;

                /**
                 * Encodes the specified NetworkPolicyPeer message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyPeer.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @static
                 * @param {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties} message NetworkPolicyPeer message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NetworkPolicyPeer.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.addressGroups != null && message.addressGroups.length)
                        for (let i = 0; i < message.addressGroups.length; ++i)
                            writer.uint32(/* id 1, wireType 2 =*/10).string(message.addressGroups[i]);
                    if (message.ipBlocks != null && message.ipBlocks.length)
                        for (let i = 0; i < message.ipBlocks.length; ++i)
                            $root.switchyard.controlplane.v1.IPBlock.encode(message.ipBlocks[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.fqdns != null && message.fqdns.length)
                        for (let i = 0; i < message.fqdns.length; ++i)
                            writer.uint32(/* id 3, wireType 2 =*/26).string(message.fqdns[i]);
                    if (message.toServices != null && message.toServices.length)
                        for (let i = 0; i < message.toServices.length; ++i)
                            $root.switchyard.controlplane.v1.ServiceReference.encode(message.toServices[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                    if (message.labelIdentities != null && message.labelIdentities.length)
                        writer.uint32(/* id 5, wireType 2 =*/42).uint32s(message.labelIdentities);
                    if (message.hasFqdns != null && $Object.hasOwnProperty.call(message, "hasFqdns") && message.hasFqdns !== false)
                        writer.uint32(/* id 13, wireType 0 =*/104).bool(message.hasFqdns);
                    if (message.hasToServices != null && $Object.hasOwnProperty.call(message, "hasToServices") && message.hasToServices !== false)
                        writer.uint32(/* id 14, wireType 0 =*/112).bool(message.hasToServices);
                    if (message.hasLabelIdentities != null && $Object.hasOwnProperty.call(message, "hasLabelIdentities") && message.hasLabelIdentities !== false)
                        writer.uint32(/* id 15, wireType 0 =*/120).bool(message.hasLabelIdentities);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NetworkPolicyPeer message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyPeer
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyPeer & switchyard.controlplane.v1.NetworkPolicyPeer.$Shape} NetworkPolicyPeer
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NetworkPolicyPeer.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NetworkPolicyPeer();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.addressGroups && message.addressGroups.length))
                                    message.addressGroups = [];
                                message.addressGroups.push(reader.stringVerify());
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.ipBlocks && message.ipBlocks.length))
                                    message.ipBlocks = [];
                                message.ipBlocks.push($root.switchyard.controlplane.v1.IPBlock.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.fqdns && message.fqdns.length))
                                    message.fqdns = [];
                                message.fqdns.push(reader.stringVerify());
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.toServices && message.toServices.length))
                                    message.toServices = [];
                                message.toServices.push($root.switchyard.controlplane.v1.ServiceReference.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 5: {
                                if (wireType === 2) {
                                    if (!(message.labelIdentities && message.labelIdentities.length))
                                        message.labelIdentities = [];
                                    reader.uint32s(message.labelIdentities);
                                    continue;
                                }
                                if (wireType !== 0)
                                    break;
                                if (!(message.labelIdentities && message.labelIdentities.length))
                                    message.labelIdentities = [];
                                message.labelIdentities.push(reader.uint32());
                                continue;
                            }
                        case 13: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasFqdns = value;
                                else
                                    delete message.hasFqdns;
                                continue;
                            }
                        case 14: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasToServices = value;
                                else
                                    delete message.hasToServices;
                                continue;
                            }
                        case 15: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasLabelIdentities = value;
                                else
                                    delete message.hasLabelIdentities;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NetworkPolicyPeer;
            })();

            v1.NetworkPolicyRule = (function() {

                /**
                 * Properties of a NetworkPolicyRule.
                 * @typedef {Object} switchyard.controlplane.v1.NetworkPolicyRule.$Properties
                 * @property {switchyard.controlplane.v1.Direction|null} [direction] NetworkPolicyRule direction
                 * @property {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null} [from] NetworkPolicyRule from
                 * @property {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null} [to] NetworkPolicyRule to
                 * @property {Array.<switchyard.controlplane.v1.Service.$Properties>|null} [services] NetworkPolicyRule services
                 * @property {switchyard.controlplane.v1.RuleAction|null} [action] NetworkPolicyRule action
                 * @property {number|null} [priority] NetworkPolicyRule priority
                 * @property {boolean|null} [enableLogging] NetworkPolicyRule enableLogging
                 * @property {string|null} [logLabel] NetworkPolicyRule logLabel
                 * @property {Array.<string>|null} [appliedToGroups] NetworkPolicyRule appliedToGroups
                 * @property {boolean|null} [hasAppliedToGroups] NetworkPolicyRule hasAppliedToGroups
                 * @property {string|null} [name] NetworkPolicyRule name
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NetworkPolicyRule.
                 * @memberof switchyard.controlplane.v1
                 * @interface INetworkPolicyRule
                 * @augments switchyard.controlplane.v1.NetworkPolicyRule.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NetworkPolicyRule.$Properties instead.
                 */

                /**
                 * Shape of a NetworkPolicyRule.
                 * @typedef {{
                 *   direction?: switchyard.controlplane.v1.Direction|null;
                 *   from?: switchyard.controlplane.v1.NetworkPolicyPeer.$Shape|null;
                 *   to?: switchyard.controlplane.v1.NetworkPolicyPeer.$Shape|null;
                 *   services?: Array.<switchyard.controlplane.v1.Service.$Shape>|null;
                 *   action?: switchyard.controlplane.v1.RuleAction|null;
                 *   priority?: number|null;
                 *   enableLogging?: boolean|null;
                 *   logLabel?: string|null;
                 *   appliedToGroups?: Array.<string>|null;
                 *   hasAppliedToGroups?: boolean|null;
                 *   name?: string|null;
                 *   $unknowns?: Array.<Uint8Array>;
                 * }} switchyard.controlplane.v1.NetworkPolicyRule.$Shape
                 */

                /**
                 * Constructs a new NetworkPolicyRule.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NetworkPolicyRule.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NetworkPolicyRule.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NetworkPolicyRule = function (properties) {
                    this.services = [];
                    this.appliedToGroups = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NetworkPolicyRule direction.
                 * @member {switchyard.controlplane.v1.Direction} direction
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.direction = 0;

                /**
                 * NetworkPolicyRule from.
                 * @member {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null|undefined} from
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.from = null;

                /**
                 * NetworkPolicyRule to.
                 * @member {switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null|undefined} to
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.to = null;

                /**
                 * NetworkPolicyRule services.
                 * @member {Array.<switchyard.controlplane.v1.Service.$Properties>} services
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.services = $util.emptyArray;

                /**
                 * NetworkPolicyRule action.
                 * @member {switchyard.controlplane.v1.RuleAction} action
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.action = 0;

                /**
                 * NetworkPolicyRule priority.
                 * @member {number} priority
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.priority = 0;

                /**
                 * NetworkPolicyRule enableLogging.
                 * @member {boolean} enableLogging
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.enableLogging = false;

                /**
                 * NetworkPolicyRule logLabel.
                 * @member {string|null|undefined} logLabel
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.logLabel = null;

                /**
                 * NetworkPolicyRule appliedToGroups.
                 * @member {Array.<string>} appliedToGroups
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.appliedToGroups = $util.emptyArray;

                /**
                 * NetworkPolicyRule hasAppliedToGroups.
                 * @member {boolean} hasAppliedToGroups
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.hasAppliedToGroups = false;

                /**
                 * NetworkPolicyRule name.
                 * @member {string|null|undefined} name
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @instance
                 */
                NetworkPolicyRule.prototype.name = null;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicyRule.prototype, "_logLabel", {
                    get: $util.oneOfGetter($oneOfFields = ["logLabel"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicyRule.prototype, "_name", {
                    get: $util.oneOfGetter($oneOfFields = ["name"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified NetworkPolicyRule message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyRule.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @static
                 * @param {switchyard.controlplane.v1.NetworkPolicyRule.$Properties} message NetworkPolicyRule message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NetworkPolicyRule.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.direction != null && $Object.hasOwnProperty.call(message, "direction") && message.direction !== 0)
                        writer.uint32(/* id 1, wireType 0 =*/8).int32(message.direction);
                    if (message.from != null && $Object.hasOwnProperty.call(message, "from"))
                        $root.switchyard.controlplane.v1.NetworkPolicyPeer.encode(message.from, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.to != null && $Object.hasOwnProperty.call(message, "to"))
                        $root.switchyard.controlplane.v1.NetworkPolicyPeer.encode(message.to, writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                    if (message.services != null && message.services.length)
                        for (let i = 0; i < message.services.length; ++i)
                            $root.switchyard.controlplane.v1.Service.encode(message.services[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                    if (message.action != null && $Object.hasOwnProperty.call(message, "action") && message.action !== 0)
                        writer.uint32(/* id 5, wireType 0 =*/40).int32(message.action);
                    if (message.priority != null && $Object.hasOwnProperty.call(message, "priority") && message.priority !== 0)
                        writer.uint32(/* id 6, wireType 0 =*/48).int32(message.priority);
                    if (message.enableLogging != null && $Object.hasOwnProperty.call(message, "enableLogging") && message.enableLogging !== false)
                        writer.uint32(/* id 7, wireType 0 =*/56).bool(message.enableLogging);
                    if (message.logLabel != null && $Object.hasOwnProperty.call(message, "logLabel"))
                        writer.uint32(/* id 8, wireType 2 =*/66).string(message.logLabel);
                    if (message.appliedToGroups != null && message.appliedToGroups.length)
                        for (let i = 0; i < message.appliedToGroups.length; ++i)
                            writer.uint32(/* id 9, wireType 2 =*/74).string(message.appliedToGroups[i]);
                    if (message.hasAppliedToGroups != null && $Object.hasOwnProperty.call(message, "hasAppliedToGroups") && message.hasAppliedToGroups !== false)
                        writer.uint32(/* id 10, wireType 0 =*/80).bool(message.hasAppliedToGroups);
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name"))
                        writer.uint32(/* id 11, wireType 2 =*/90).string(message.name);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NetworkPolicyRule message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyRule
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyRule & switchyard.controlplane.v1.NetworkPolicyRule.$Shape} NetworkPolicyRule
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NetworkPolicyRule.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NetworkPolicyRule();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.direction = value;
                                else
                                    delete message.direction;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                message.from = $root.switchyard.controlplane.v1.NetworkPolicyPeer.decode(reader, reader.size(), $undefined, _depth + 1, message.from);
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                message.to = $root.switchyard.controlplane.v1.NetworkPolicyPeer.decode(reader, reader.size(), $undefined, _depth + 1, message.to);
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.services && message.services.length))
                                    message.services = [];
                                message.services.push($root.switchyard.controlplane.v1.Service.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 5: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.action = value;
                                else
                                    delete message.action;
                                continue;
                            }
                        case 6: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.priority = value;
                                else
                                    delete message.priority;
                                continue;
                            }
                        case 7: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.enableLogging = value;
                                else
                                    delete message.enableLogging;
                                continue;
                            }
                        case 8: {
                                if (wireType !== 2)
                                    break;
                                message.logLabel = reader.stringVerify();
                                message._logLabel = "logLabel";
                                continue;
                            }
                        case 9: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.appliedToGroups && message.appliedToGroups.length))
                                    message.appliedToGroups = [];
                                message.appliedToGroups.push(reader.stringVerify());
                                continue;
                            }
                        case 10: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasAppliedToGroups = value;
                                else
                                    delete message.hasAppliedToGroups;
                                continue;
                            }
                        case 11: {
                                if (wireType !== 2)
                                    break;
                                message.name = reader.stringVerify();
                                message._name = "name";
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NetworkPolicyRule;
            })();

            v1.NetworkPolicy = (function() {

                /**
                 * Properties of a NetworkPolicy.
                 * @typedef {Object} switchyard.controlplane.v1.NetworkPolicy.$Properties
                 * @property {string|null} [uid] NetworkPolicy uid
                 * @property {string|null} [name] NetworkPolicy name
                 * @property {string|null} [namespace] NetworkPolicy namespace
                 * @property {switchyard.controlplane.v1.NetworkPolicyReference.$Properties|null} [sourceRef] NetworkPolicy sourceRef
                 * @property {Array.<switchyard.controlplane.v1.NetworkPolicyRule.$Properties>|null} [rules] NetworkPolicy rules
                 * @property {Array.<string>|null} [appliedToGroups] NetworkPolicy appliedToGroups
                 * @property {number|null} [priority] NetworkPolicy priority
                 * @property {number|null} [tierPriority] NetworkPolicy tierPriority
                 * @property {boolean|null} [appliedToPerRule] NetworkPolicy appliedToPerRule
                 * @property {number|Long|null} [generation] NetworkPolicy generation
                 * @property {Array.<switchyard.controlplane.v1.PolicyType>|null} [policyTypes] NetworkPolicy policyTypes
                 * @property {boolean|null} [hasPolicyTypes] NetworkPolicy hasPolicyTypes
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NetworkPolicy.
                 * @memberof switchyard.controlplane.v1
                 * @interface INetworkPolicy
                 * @augments switchyard.controlplane.v1.NetworkPolicy.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NetworkPolicy.$Properties instead.
                 */

                /**
                 * Shape of a NetworkPolicy.
                 * @typedef {{
                 *   uid?: string|null;
                 *   name?: string|null;
                 *   namespace?: string|null;
                 *   sourceRef?: switchyard.controlplane.v1.NetworkPolicyReference.$Shape|null;
                 *   rules?: Array.<switchyard.controlplane.v1.NetworkPolicyRule.$Shape>|null;
                 *   appliedToGroups?: Array.<string>|null;
                 *   priority?: number|null;
                 *   tierPriority?: number|null;
                 *   appliedToPerRule?: boolean|null;
                 *   generation?: number|Long|null;
                 *   policyTypes?: Array.<switchyard.controlplane.v1.PolicyType>|null;
                 *   hasPolicyTypes?: boolean|null;
                 *   $unknowns?: Array.<Uint8Array>;
                 * }} switchyard.controlplane.v1.NetworkPolicy.$Shape
                 */

                /**
                 * Constructs a new NetworkPolicy.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NetworkPolicy.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NetworkPolicy.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NetworkPolicy = function (properties) {
                    this.rules = [];
                    this.appliedToGroups = [];
                    this.policyTypes = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NetworkPolicy uid.
                 * @member {string} uid
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.uid = "";

                /**
                 * NetworkPolicy name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.name = "";

                /**
                 * NetworkPolicy namespace.
                 * @member {string} namespace
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.namespace = "";

                /**
                 * NetworkPolicy sourceRef.
                 * @member {switchyard.controlplane.v1.NetworkPolicyReference.$Properties|null|undefined} sourceRef
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.sourceRef = null;

                /**
                 * NetworkPolicy rules.
                 * @member {Array.<switchyard.controlplane.v1.NetworkPolicyRule.$Properties>} rules
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.rules = $util.emptyArray;

                /**
                 * NetworkPolicy appliedToGroups.
                 * @member {Array.<string>} appliedToGroups
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.appliedToGroups = $util.emptyArray;

                /**
                 * NetworkPolicy priority.
                 * @member {number|null|undefined} priority
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.priority = null;

                /**
                 * NetworkPolicy tierPriority.
                 * @member {number|null|undefined} tierPriority
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.tierPriority = null;

                /**
                 * NetworkPolicy appliedToPerRule.
                 * @member {boolean|null|undefined} appliedToPerRule
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.appliedToPerRule = null;

                /**
                 * NetworkPolicy generation.
                 * @member {number|Long} generation
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.generation = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

                /**
                 * NetworkPolicy policyTypes.
                 * @member {Array.<switchyard.controlplane.v1.PolicyType>} policyTypes
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.policyTypes = $util.emptyArray;

                /**
                 * NetworkPolicy hasPolicyTypes.
                 * @member {boolean} hasPolicyTypes
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @instance
                 */
                NetworkPolicy.prototype.hasPolicyTypes = false;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicy.prototype, "_priority", {
                    get: $util.oneOfGetter($oneOfFields = ["priority"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicy.prototype, "_tierPriority", {
                    get: $util.oneOfGetter($oneOfFields = ["tierPriority"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicy.prototype, "_appliedToPerRule", {
                    get: $util.oneOfGetter($oneOfFields = ["appliedToPerRule"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified NetworkPolicy message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicy.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @static
                 * @param {switchyard.controlplane.v1.NetworkPolicy.$Properties} message NetworkPolicy message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NetworkPolicy.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.uid != null && $Object.hasOwnProperty.call(message, "uid") && message.uid !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.uid);
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.name);
                    if (message.namespace != null && $Object.hasOwnProperty.call(message, "namespace") && message.namespace !== "")
                        writer.uint32(/* id 3, wireType 2 =*/26).string(message.namespace);
                    if (message.sourceRef != null && $Object.hasOwnProperty.call(message, "sourceRef"))
                        $root.switchyard.controlplane.v1.NetworkPolicyReference.encode(message.sourceRef, writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                    if (message.rules != null && message.rules.length)
                        for (let i = 0; i < message.rules.length; ++i)
                            $root.switchyard.controlplane.v1.NetworkPolicyRule.encode(message.rules[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                    if (message.appliedToGroups != null && message.appliedToGroups.length)
                        for (let i = 0; i < message.appliedToGroups.length; ++i)
                            writer.uint32(/* id 6, wireType 2 =*/50).string(message.appliedToGroups[i]);
                    if (message.priority != null && $Object.hasOwnProperty.call(message, "priority"))
                        writer.uint32(/* id 7, wireType 1 =*/57).double(message.priority);
                    if (message.tierPriority != null && $Object.hasOwnProperty.call(message, "tierPriority"))
                        writer.uint32(/* id 8, wireType 0 =*/64).int32(message.tierPriority);
                    if (message.appliedToPerRule != null && $Object.hasOwnProperty.call(message, "appliedToPerRule"))
                        writer.uint32(/* id 9, wireType 0 =*/72).bool(message.appliedToPerRule);
                    if (message.generation != null && $Object.hasOwnProperty.call(message, "generation") && (typeof message.generation === "object" ? message.generation.low || message.generation.high : message.generation !== 0))
                        writer.uint32(/* id 10, wireType 0 =*/80).int64(message.generation);
                    if (message.policyTypes != null && message.policyTypes.length)
                        writer.uint32(/* id 11, wireType 2 =*/90).int32s(message.policyTypes);
                    if (message.hasPolicyTypes != null && $Object.hasOwnProperty.call(message, "hasPolicyTypes") && message.hasPolicyTypes !== false)
                        writer.uint32(/* id 12, wireType 0 =*/96).bool(message.hasPolicyTypes);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NetworkPolicy message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NetworkPolicy
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicy & switchyard.controlplane.v1.NetworkPolicy.$Shape} NetworkPolicy
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NetworkPolicy.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NetworkPolicy();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.uid = value;
                                else
                                    delete message.uid;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.namespace = value;
                                else
                                    delete message.namespace;
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                message.sourceRef = $root.switchyard.controlplane.v1.NetworkPolicyReference.decode(reader, reader.size(), $undefined, _depth + 1, message.sourceRef);
                                continue;
                            }
                        case 5: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.rules && message.rules.length))
                                    message.rules = [];
                                message.rules.push($root.switchyard.controlplane.v1.NetworkPolicyRule.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 6: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.appliedToGroups && message.appliedToGroups.length))
                                    message.appliedToGroups = [];
                                message.appliedToGroups.push(reader.stringVerify());
                                continue;
                            }
                        case 7: {
                                if (wireType !== 1)
                                    break;
                                message.priority = reader.double();
                                message._priority = "priority";
                                continue;
                            }
                        case 8: {
                                if (wireType !== 0)
                                    break;
                                message.tierPriority = reader.int32();
                                message._tierPriority = "tierPriority";
                                continue;
                            }
                        case 9: {
                                if (wireType !== 0)
                                    break;
                                message.appliedToPerRule = reader.bool();
                                message._appliedToPerRule = "appliedToPerRule";
                                continue;
                            }
                        case 10: {
                                if (wireType !== 0)
                                    break;
                                if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                    message.generation = value;
                                else
                                    delete message.generation;
                                continue;
                            }
                        case 11: {
                                if (wireType === 2) {
                                    if (!(message.policyTypes && message.policyTypes.length))
                                        message.policyTypes = [];
                                    reader.int32s(message.policyTypes);
                                    continue;
                                }
                                if (wireType !== 0)
                                    break;
                                if (!(message.policyTypes && message.policyTypes.length))
                                    message.policyTypes = [];
                                message.policyTypes.push(reader.int32());
                                continue;
                            }
                        case 12: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasPolicyTypes = value;
                                else
                                    delete message.hasPolicyTypes;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NetworkPolicy;
            })();

            v1.NamedPort = (function() {

                /**
                 * Properties of a NamedPort.
                 * @typedef {Object} switchyard.controlplane.v1.NamedPort.$Properties
                 * @property {string|null} [name] NamedPort name
                 * @property {number|null} [port] NamedPort port
                 * @property {switchyard.controlplane.v1.Protocol|null} [protocol] NamedPort protocol
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NamedPort.
                 * @memberof switchyard.controlplane.v1
                 * @interface INamedPort
                 * @augments switchyard.controlplane.v1.NamedPort.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NamedPort.$Properties instead.
                 */

                /**
                 * Shape of a NamedPort.
                 * @typedef {switchyard.controlplane.v1.NamedPort.$Properties} switchyard.controlplane.v1.NamedPort.$Shape
                 */

                /**
                 * Constructs a new NamedPort.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NamedPort.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NamedPort.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NamedPort = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NamedPort name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.NamedPort
                 * @instance
                 */
                NamedPort.prototype.name = "";

                /**
                 * NamedPort port.
                 * @member {number} port
                 * @memberof switchyard.controlplane.v1.NamedPort
                 * @instance
                 */
                NamedPort.prototype.port = 0;

                /**
                 * NamedPort protocol.
                 * @member {switchyard.controlplane.v1.Protocol} protocol
                 * @memberof switchyard.controlplane.v1.NamedPort
                 * @instance
                 */
                NamedPort.prototype.protocol = 0;

                /**
                 * Encodes the specified NamedPort message. Does not implicitly {@link switchyard.controlplane.v1.NamedPort.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NamedPort
                 * @static
                 * @param {switchyard.controlplane.v1.NamedPort.$Properties} message NamedPort message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NamedPort.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.port != null && $Object.hasOwnProperty.call(message, "port") && message.port !== 0)
                        writer.uint32(/* id 2, wireType 0 =*/16).int32(message.port);
                    if (message.protocol != null && $Object.hasOwnProperty.call(message, "protocol") && message.protocol !== 0)
                        writer.uint32(/* id 3, wireType 0 =*/24).int32(message.protocol);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NamedPort message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NamedPort
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NamedPort & switchyard.controlplane.v1.NamedPort.$Shape} NamedPort
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NamedPort.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NamedPort();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.port = value;
                                else
                                    delete message.port;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.protocol = value;
                                else
                                    delete message.protocol;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NamedPort;
            })();

            v1.PodReference = (function() {

                /**
                 * Properties of a PodReference.
                 * @typedef {Object} switchyard.controlplane.v1.PodReference.$Properties
                 * @property {string|null} [name] PodReference name
                 * @property {string|null} [namespace] PodReference namespace
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a PodReference.
                 * @memberof switchyard.controlplane.v1
                 * @interface IPodReference
                 * @augments switchyard.controlplane.v1.PodReference.$Properties
                 * @deprecated Use switchyard.controlplane.v1.PodReference.$Properties instead.
                 */

                /**
                 * Shape of a PodReference.
                 * @typedef {switchyard.controlplane.v1.PodReference.$Properties} switchyard.controlplane.v1.PodReference.$Shape
                 */

                /**
                 * Constructs a new PodReference.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a PodReference.
                 * @constructor
                 * @param {switchyard.controlplane.v1.PodReference.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const PodReference = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * PodReference name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.PodReference
                 * @instance
                 */
                PodReference.prototype.name = "";

                /**
                 * PodReference namespace.
                 * @member {string} namespace
                 * @memberof switchyard.controlplane.v1.PodReference
                 * @instance
                 */
                PodReference.prototype.namespace = "";

                /**
                 * Encodes the specified PodReference message. Does not implicitly {@link switchyard.controlplane.v1.PodReference.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.PodReference
                 * @static
                 * @param {switchyard.controlplane.v1.PodReference.$Properties} message PodReference message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                PodReference.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.namespace != null && $Object.hasOwnProperty.call(message, "namespace") && message.namespace !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.namespace);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a PodReference message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.PodReference
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.PodReference & switchyard.controlplane.v1.PodReference.$Shape} PodReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                PodReference.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.PodReference();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.namespace = value;
                                else
                                    delete message.namespace;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return PodReference;
            })();

            v1.ExternalEntityReference = (function() {

                /**
                 * Properties of an ExternalEntityReference.
                 * @typedef {Object} switchyard.controlplane.v1.ExternalEntityReference.$Properties
                 * @property {string|null} [name] ExternalEntityReference name
                 * @property {string|null} [namespace] ExternalEntityReference namespace
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an ExternalEntityReference.
                 * @memberof switchyard.controlplane.v1
                 * @interface IExternalEntityReference
                 * @augments switchyard.controlplane.v1.ExternalEntityReference.$Properties
                 * @deprecated Use switchyard.controlplane.v1.ExternalEntityReference.$Properties instead.
                 */

                /**
                 * Shape of an ExternalEntityReference.
                 * @typedef {switchyard.controlplane.v1.ExternalEntityReference.$Properties} switchyard.controlplane.v1.ExternalEntityReference.$Shape
                 */

                /**
                 * Constructs a new ExternalEntityReference.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an ExternalEntityReference.
                 * @constructor
                 * @param {switchyard.controlplane.v1.ExternalEntityReference.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const ExternalEntityReference = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * ExternalEntityReference name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.ExternalEntityReference
                 * @instance
                 */
                ExternalEntityReference.prototype.name = "";

                /**
                 * ExternalEntityReference namespace.
                 * @member {string} namespace
                 * @memberof switchyard.controlplane.v1.ExternalEntityReference
                 * @instance
                 */
                ExternalEntityReference.prototype.namespace = "";

                /**
                 * Encodes the specified ExternalEntityReference message. Does not implicitly {@link switchyard.controlplane.v1.ExternalEntityReference.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.ExternalEntityReference
                 * @static
                 * @param {switchyard.controlplane.v1.ExternalEntityReference.$Properties} message ExternalEntityReference message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                ExternalEntityReference.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.namespace != null && $Object.hasOwnProperty.call(message, "namespace") && message.namespace !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.namespace);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an ExternalEntityReference message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.ExternalEntityReference
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.ExternalEntityReference & switchyard.controlplane.v1.ExternalEntityReference.$Shape} ExternalEntityReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                ExternalEntityReference.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.ExternalEntityReference();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.namespace = value;
                                else
                                    delete message.namespace;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return ExternalEntityReference;
            })();

            v1.NodeReference = (function() {

                /**
                 * Properties of a NodeReference.
                 * @typedef {Object} switchyard.controlplane.v1.NodeReference.$Properties
                 * @property {string|null} [name] NodeReference name
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NodeReference.
                 * @memberof switchyard.controlplane.v1
                 * @interface INodeReference
                 * @augments switchyard.controlplane.v1.NodeReference.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NodeReference.$Properties instead.
                 */

                /**
                 * Shape of a NodeReference.
                 * @typedef {switchyard.controlplane.v1.NodeReference.$Properties} switchyard.controlplane.v1.NodeReference.$Shape
                 */

                /**
                 * Constructs a new NodeReference.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NodeReference.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NodeReference.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NodeReference = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NodeReference name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.NodeReference
                 * @instance
                 */
                NodeReference.prototype.name = "";

                /**
                 * Encodes the specified NodeReference message. Does not implicitly {@link switchyard.controlplane.v1.NodeReference.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NodeReference
                 * @static
                 * @param {switchyard.controlplane.v1.NodeReference.$Properties} message NodeReference message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NodeReference.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NodeReference message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NodeReference
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NodeReference & switchyard.controlplane.v1.NodeReference.$Shape} NodeReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NodeReference.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NodeReference();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NodeReference;
            })();

            v1.GroupMember = (function() {

                /**
                 * Properties of a GroupMember.
                 * @typedef {Object} switchyard.controlplane.v1.GroupMember.$Properties
                 * @property {switchyard.controlplane.v1.PodReference.$Properties|null} [pod] GroupMember pod
                 * @property {switchyard.controlplane.v1.ExternalEntityReference.$Properties|null} [externalEntity] GroupMember externalEntity
                 * @property {switchyard.controlplane.v1.NodeReference.$Properties|null} [node] GroupMember node
                 * @property {Array.<Uint8Array>|null} [ips] GroupMember ips
                 * @property {Array.<switchyard.controlplane.v1.NamedPort.$Properties>|null} [ports] GroupMember ports
                 * @property {boolean|null} [hasPorts] GroupMember hasPorts
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a GroupMember.
                 * @memberof switchyard.controlplane.v1
                 * @interface IGroupMember
                 * @augments switchyard.controlplane.v1.GroupMember.$Properties
                 * @deprecated Use switchyard.controlplane.v1.GroupMember.$Properties instead.
                 */

                /**
                 * Shape of a GroupMember.
                 * @typedef {switchyard.controlplane.v1.GroupMember.$Properties} switchyard.controlplane.v1.GroupMember.$Shape
                 */

                /**
                 * Constructs a new GroupMember.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a GroupMember.
                 * @constructor
                 * @param {switchyard.controlplane.v1.GroupMember.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const GroupMember = function (properties) {
                    this.ips = [];
                    this.ports = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * GroupMember pod.
                 * @member {switchyard.controlplane.v1.PodReference.$Properties|null|undefined} pod
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @instance
                 */
                GroupMember.prototype.pod = null;

                /**
                 * GroupMember externalEntity.
                 * @member {switchyard.controlplane.v1.ExternalEntityReference.$Properties|null|undefined} externalEntity
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @instance
                 */
                GroupMember.prototype.externalEntity = null;

                /**
                 * GroupMember node.
                 * @member {switchyard.controlplane.v1.NodeReference.$Properties|null|undefined} node
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @instance
                 */
                GroupMember.prototype.node = null;

                /**
                 * GroupMember ips.
                 * @member {Array.<Uint8Array>} ips
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @instance
                 */
                GroupMember.prototype.ips = $util.emptyArray;

                /**
                 * GroupMember ports.
                 * @member {Array.<switchyard.controlplane.v1.NamedPort.$Properties>} ports
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @instance
                 */
                GroupMember.prototype.ports = $util.emptyArray;

                /**
                 * GroupMember hasPorts.
                 * @member {boolean} hasPorts
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @instance
                 */
                GroupMember.prototype.hasPorts = false;

                /**
                 * Encodes the specified GroupMember message. Does not implicitly {@link switchyard.controlplane.v1.GroupMember.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @static
                 * @param {switchyard.controlplane.v1.GroupMember.$Properties} message GroupMember message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                GroupMember.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.pod != null && $Object.hasOwnProperty.call(message, "pod"))
                        $root.switchyard.controlplane.v1.PodReference.encode(message.pod, writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                    if (message.externalEntity != null && $Object.hasOwnProperty.call(message, "externalEntity"))
                        $root.switchyard.controlplane.v1.ExternalEntityReference.encode(message.externalEntity, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.node != null && $Object.hasOwnProperty.call(message, "node"))
                        $root.switchyard.controlplane.v1.NodeReference.encode(message.node, writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                    if (message.ips != null && message.ips.length)
                        for (let i = 0; i < message.ips.length; ++i)
                            writer.uint32(/* id 4, wireType 2 =*/34).bytes(message.ips[i]);
                    if (message.ports != null && message.ports.length)
                        for (let i = 0; i < message.ports.length; ++i)
                            $root.switchyard.controlplane.v1.NamedPort.encode(message.ports[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                    if (message.hasPorts != null && $Object.hasOwnProperty.call(message, "hasPorts") && message.hasPorts !== false)
                        writer.uint32(/* id 6, wireType 0 =*/48).bool(message.hasPorts);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a GroupMember message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.GroupMember
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.GroupMember & switchyard.controlplane.v1.GroupMember.$Shape} GroupMember
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                GroupMember.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.GroupMember();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                message.pod = $root.switchyard.controlplane.v1.PodReference.decode(reader, reader.size(), $undefined, _depth + 1, message.pod);
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                message.externalEntity = $root.switchyard.controlplane.v1.ExternalEntityReference.decode(reader, reader.size(), $undefined, _depth + 1, message.externalEntity);
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                message.node = $root.switchyard.controlplane.v1.NodeReference.decode(reader, reader.size(), $undefined, _depth + 1, message.node);
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.ips && message.ips.length))
                                    message.ips = [];
                                message.ips.push(reader.bytes());
                                continue;
                            }
                        case 5: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.ports && message.ports.length))
                                    message.ports = [];
                                message.ports.push($root.switchyard.controlplane.v1.NamedPort.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 6: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasPorts = value;
                                else
                                    delete message.hasPorts;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return GroupMember;
            })();

            v1.AddressGroup = (function() {

                /**
                 * Properties of an AddressGroup.
                 * @typedef {Object} switchyard.controlplane.v1.AddressGroup.$Properties
                 * @property {string|null} [name] AddressGroup name
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [groupMembers] AddressGroup groupMembers
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an AddressGroup.
                 * @memberof switchyard.controlplane.v1
                 * @interface IAddressGroup
                 * @augments switchyard.controlplane.v1.AddressGroup.$Properties
                 * @deprecated Use switchyard.controlplane.v1.AddressGroup.$Properties instead.
                 */

                /**
                 * Shape of an AddressGroup.
                 * @typedef {switchyard.controlplane.v1.AddressGroup.$Properties} switchyard.controlplane.v1.AddressGroup.$Shape
                 */

                /**
                 * Constructs a new AddressGroup.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an AddressGroup.
                 * @constructor
                 * @param {switchyard.controlplane.v1.AddressGroup.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const AddressGroup = function (properties) {
                    this.groupMembers = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * AddressGroup name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.AddressGroup
                 * @instance
                 */
                AddressGroup.prototype.name = "";

                /**
                 * AddressGroup groupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} groupMembers
                 * @memberof switchyard.controlplane.v1.AddressGroup
                 * @instance
                 */
                AddressGroup.prototype.groupMembers = $util.emptyArray;

                /**
                 * Encodes the specified AddressGroup message. Does not implicitly {@link switchyard.controlplane.v1.AddressGroup.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.AddressGroup
                 * @static
                 * @param {switchyard.controlplane.v1.AddressGroup.$Properties} message AddressGroup message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                AddressGroup.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.groupMembers != null && message.groupMembers.length)
                        for (let i = 0; i < message.groupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.groupMembers[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an AddressGroup message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.AddressGroup
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AddressGroup & switchyard.controlplane.v1.AddressGroup.$Shape} AddressGroup
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                AddressGroup.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.AddressGroup();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.groupMembers && message.groupMembers.length))
                                    message.groupMembers = [];
                                message.groupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return AddressGroup;
            })();

            v1.AppliedToGroup = (function() {

                /**
                 * Properties of an AppliedToGroup.
                 * @typedef {Object} switchyard.controlplane.v1.AppliedToGroup.$Properties
                 * @property {string|null} [name] AppliedToGroup name
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [groupMembers] AppliedToGroup groupMembers
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an AppliedToGroup.
                 * @memberof switchyard.controlplane.v1
                 * @interface IAppliedToGroup
                 * @augments switchyard.controlplane.v1.AppliedToGroup.$Properties
                 * @deprecated Use switchyard.controlplane.v1.AppliedToGroup.$Properties instead.
                 */

                /**
                 * Shape of an AppliedToGroup.
                 * @typedef {switchyard.controlplane.v1.AppliedToGroup.$Properties} switchyard.controlplane.v1.AppliedToGroup.$Shape
                 */

                /**
                 * Constructs a new AppliedToGroup.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an AppliedToGroup.
                 * @constructor
                 * @param {switchyard.controlplane.v1.AppliedToGroup.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const AppliedToGroup = function (properties) {
                    this.groupMembers = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * AppliedToGroup name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.AppliedToGroup
                 * @instance
                 */
                AppliedToGroup.prototype.name = "";

                /**
                 * AppliedToGroup groupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} groupMembers
                 * @memberof switchyard.controlplane.v1.AppliedToGroup
                 * @instance
                 */
                AppliedToGroup.prototype.groupMembers = $util.emptyArray;

                /**
                 * Encodes the specified AppliedToGroup message. Does not implicitly {@link switchyard.controlplane.v1.AppliedToGroup.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.AppliedToGroup
                 * @static
                 * @param {switchyard.controlplane.v1.AppliedToGroup.$Properties} message AppliedToGroup message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                AppliedToGroup.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.groupMembers != null && message.groupMembers.length)
                        for (let i = 0; i < message.groupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.groupMembers[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an AppliedToGroup message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.AppliedToGroup
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AppliedToGroup & switchyard.controlplane.v1.AppliedToGroup.$Shape} AppliedToGroup
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                AppliedToGroup.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.AppliedToGroup();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.groupMembers && message.groupMembers.length))
                                    message.groupMembers = [];
                                message.groupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return AppliedToGroup;
            })();

            v1.AddressGroupPatch = (function() {

                /**
                 * Properties of an AddressGroupPatch.
                 * @typedef {Object} switchyard.controlplane.v1.AddressGroupPatch.$Properties
                 * @property {string|null} [name] AddressGroupPatch name
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [addedGroupMembers] AddressGroupPatch addedGroupMembers
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [removedGroupMembers] AddressGroupPatch removedGroupMembers
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an AddressGroupPatch.
                 * @memberof switchyard.controlplane.v1
                 * @interface IAddressGroupPatch
                 * @augments switchyard.controlplane.v1.AddressGroupPatch.$Properties
                 * @deprecated Use switchyard.controlplane.v1.AddressGroupPatch.$Properties instead.
                 */

                /**
                 * Shape of an AddressGroupPatch.
                 * @typedef {switchyard.controlplane.v1.AddressGroupPatch.$Properties} switchyard.controlplane.v1.AddressGroupPatch.$Shape
                 */

                /**
                 * Constructs a new AddressGroupPatch.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an AddressGroupPatch.
                 * @constructor
                 * @param {switchyard.controlplane.v1.AddressGroupPatch.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const AddressGroupPatch = function (properties) {
                    this.addedGroupMembers = [];
                    this.removedGroupMembers = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * AddressGroupPatch name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.AddressGroupPatch
                 * @instance
                 */
                AddressGroupPatch.prototype.name = "";

                /**
                 * AddressGroupPatch addedGroupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} addedGroupMembers
                 * @memberof switchyard.controlplane.v1.AddressGroupPatch
                 * @instance
                 */
                AddressGroupPatch.prototype.addedGroupMembers = $util.emptyArray;

                /**
                 * AddressGroupPatch removedGroupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} removedGroupMembers
                 * @memberof switchyard.controlplane.v1.AddressGroupPatch
                 * @instance
                 */
                AddressGroupPatch.prototype.removedGroupMembers = $util.emptyArray;

                /**
                 * Encodes the specified AddressGroupPatch message. Does not implicitly {@link switchyard.controlplane.v1.AddressGroupPatch.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.AddressGroupPatch
                 * @static
                 * @param {switchyard.controlplane.v1.AddressGroupPatch.$Properties} message AddressGroupPatch message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                AddressGroupPatch.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.addedGroupMembers != null && message.addedGroupMembers.length)
                        for (let i = 0; i < message.addedGroupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.addedGroupMembers[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.removedGroupMembers != null && message.removedGroupMembers.length)
                        for (let i = 0; i < message.removedGroupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.removedGroupMembers[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an AddressGroupPatch message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.AddressGroupPatch
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AddressGroupPatch & switchyard.controlplane.v1.AddressGroupPatch.$Shape} AddressGroupPatch
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                AddressGroupPatch.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.AddressGroupPatch();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.addedGroupMembers && message.addedGroupMembers.length))
                                    message.addedGroupMembers = [];
                                message.addedGroupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.removedGroupMembers && message.removedGroupMembers.length))
                                    message.removedGroupMembers = [];
                                message.removedGroupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return AddressGroupPatch;
            })();

            v1.AppliedToGroupPatch = (function() {

                /**
                 * Properties of an AppliedToGroupPatch.
                 * @typedef {Object} switchyard.controlplane.v1.AppliedToGroupPatch.$Properties
                 * @property {string|null} [name] AppliedToGroupPatch name
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [addedGroupMembers] AppliedToGroupPatch addedGroupMembers
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [removedGroupMembers] AppliedToGroupPatch removedGroupMembers
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an AppliedToGroupPatch.
                 * @memberof switchyard.controlplane.v1
                 * @interface IAppliedToGroupPatch
                 * @augments switchyard.controlplane.v1.AppliedToGroupPatch.$Properties
                 * @deprecated Use switchyard.controlplane.v1.AppliedToGroupPatch.$Properties instead.
                 */

                /**
                 * Shape of an AppliedToGroupPatch.
                 * @typedef {switchyard.controlplane.v1.AppliedToGroupPatch.$Properties} switchyard.controlplane.v1.AppliedToGroupPatch.$Shape
                 */

                /**
                 * Constructs a new AppliedToGroupPatch.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an AppliedToGroupPatch.
                 * @constructor
                 * @param {switchyard.controlplane.v1.AppliedToGroupPatch.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const AppliedToGroupPatch = function (properties) {
                    this.addedGroupMembers = [];
                    this.removedGroupMembers = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * AppliedToGroupPatch name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.AppliedToGroupPatch
                 * @instance
                 */
                AppliedToGroupPatch.prototype.name = "";

                /**
                 * AppliedToGroupPatch addedGroupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} addedGroupMembers
                 * @memberof switchyard.controlplane.v1.AppliedToGroupPatch
                 * @instance
                 */
                AppliedToGroupPatch.prototype.addedGroupMembers = $util.emptyArray;

                /**
                 * AppliedToGroupPatch removedGroupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} removedGroupMembers
                 * @memberof switchyard.controlplane.v1.AppliedToGroupPatch
                 * @instance
                 */
                AppliedToGroupPatch.prototype.removedGroupMembers = $util.emptyArray;

                /**
                 * Encodes the specified AppliedToGroupPatch message. Does not implicitly {@link switchyard.controlplane.v1.AppliedToGroupPatch.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.AppliedToGroupPatch
                 * @static
                 * @param {switchyard.controlplane.v1.AppliedToGroupPatch.$Properties} message AppliedToGroupPatch message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                AppliedToGroupPatch.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.addedGroupMembers != null && message.addedGroupMembers.length)
                        for (let i = 0; i < message.addedGroupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.addedGroupMembers[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.removedGroupMembers != null && message.removedGroupMembers.length)
                        for (let i = 0; i < message.removedGroupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.removedGroupMembers[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an AppliedToGroupPatch message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.AppliedToGroupPatch
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AppliedToGroupPatch & switchyard.controlplane.v1.AppliedToGroupPatch.$Shape} AppliedToGroupPatch
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                AppliedToGroupPatch.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.AppliedToGroupPatch();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.addedGroupMembers && message.addedGroupMembers.length))
                                    message.addedGroupMembers = [];
                                message.addedGroupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.removedGroupMembers && message.removedGroupMembers.length))
                                    message.removedGroupMembers = [];
                                message.removedGroupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return AppliedToGroupPatch;
            })();

            v1.EgressGroup = (function() {

                /**
                 * Properties of an EgressGroup.
                 * @typedef {Object} switchyard.controlplane.v1.EgressGroup.$Properties
                 * @property {string|null} [name] EgressGroup name
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [groupMembers] EgressGroup groupMembers
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an EgressGroup.
                 * @memberof switchyard.controlplane.v1
                 * @interface IEgressGroup
                 * @augments switchyard.controlplane.v1.EgressGroup.$Properties
                 * @deprecated Use switchyard.controlplane.v1.EgressGroup.$Properties instead.
                 */

                /**
                 * Shape of an EgressGroup.
                 * @typedef {switchyard.controlplane.v1.EgressGroup.$Properties} switchyard.controlplane.v1.EgressGroup.$Shape
                 */

                /**
                 * Constructs a new EgressGroup.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an EgressGroup.
                 * @constructor
                 * @param {switchyard.controlplane.v1.EgressGroup.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const EgressGroup = function (properties) {
                    this.groupMembers = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * EgressGroup name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.EgressGroup
                 * @instance
                 */
                EgressGroup.prototype.name = "";

                /**
                 * EgressGroup groupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} groupMembers
                 * @memberof switchyard.controlplane.v1.EgressGroup
                 * @instance
                 */
                EgressGroup.prototype.groupMembers = $util.emptyArray;

                /**
                 * Encodes the specified EgressGroup message. Does not implicitly {@link switchyard.controlplane.v1.EgressGroup.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.EgressGroup
                 * @static
                 * @param {switchyard.controlplane.v1.EgressGroup.$Properties} message EgressGroup message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                EgressGroup.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.groupMembers != null && message.groupMembers.length)
                        for (let i = 0; i < message.groupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.groupMembers[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an EgressGroup message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.EgressGroup
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.EgressGroup & switchyard.controlplane.v1.EgressGroup.$Shape} EgressGroup
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                EgressGroup.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.EgressGroup();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.groupMembers && message.groupMembers.length))
                                    message.groupMembers = [];
                                message.groupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return EgressGroup;
            })();

            v1.EgressGroupPatch = (function() {

                /**
                 * Properties of an EgressGroupPatch.
                 * @typedef {Object} switchyard.controlplane.v1.EgressGroupPatch.$Properties
                 * @property {string|null} [name] EgressGroupPatch name
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [addedGroupMembers] EgressGroupPatch addedGroupMembers
                 * @property {Array.<switchyard.controlplane.v1.GroupMember.$Properties>|null} [removedGroupMembers] EgressGroupPatch removedGroupMembers
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an EgressGroupPatch.
                 * @memberof switchyard.controlplane.v1
                 * @interface IEgressGroupPatch
                 * @augments switchyard.controlplane.v1.EgressGroupPatch.$Properties
                 * @deprecated Use switchyard.controlplane.v1.EgressGroupPatch.$Properties instead.
                 */

                /**
                 * Shape of an EgressGroupPatch.
                 * @typedef {switchyard.controlplane.v1.EgressGroupPatch.$Properties} switchyard.controlplane.v1.EgressGroupPatch.$Shape
                 */

                /**
                 * Constructs a new EgressGroupPatch.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an EgressGroupPatch.
                 * @constructor
                 * @param {switchyard.controlplane.v1.EgressGroupPatch.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const EgressGroupPatch = function (properties) {
                    this.addedGroupMembers = [];
                    this.removedGroupMembers = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * EgressGroupPatch name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.EgressGroupPatch
                 * @instance
                 */
                EgressGroupPatch.prototype.name = "";

                /**
                 * EgressGroupPatch addedGroupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} addedGroupMembers
                 * @memberof switchyard.controlplane.v1.EgressGroupPatch
                 * @instance
                 */
                EgressGroupPatch.prototype.addedGroupMembers = $util.emptyArray;

                /**
                 * EgressGroupPatch removedGroupMembers.
                 * @member {Array.<switchyard.controlplane.v1.GroupMember.$Properties>} removedGroupMembers
                 * @memberof switchyard.controlplane.v1.EgressGroupPatch
                 * @instance
                 */
                EgressGroupPatch.prototype.removedGroupMembers = $util.emptyArray;

                /**
                 * Encodes the specified EgressGroupPatch message. Does not implicitly {@link switchyard.controlplane.v1.EgressGroupPatch.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.EgressGroupPatch
                 * @static
                 * @param {switchyard.controlplane.v1.EgressGroupPatch.$Properties} message EgressGroupPatch message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                EgressGroupPatch.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.addedGroupMembers != null && message.addedGroupMembers.length)
                        for (let i = 0; i < message.addedGroupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.addedGroupMembers[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.removedGroupMembers != null && message.removedGroupMembers.length)
                        for (let i = 0; i < message.removedGroupMembers.length; ++i)
                            $root.switchyard.controlplane.v1.GroupMember.encode(message.removedGroupMembers[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an EgressGroupPatch message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.EgressGroupPatch
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.EgressGroupPatch & switchyard.controlplane.v1.EgressGroupPatch.$Shape} EgressGroupPatch
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                EgressGroupPatch.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.EgressGroupPatch();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.addedGroupMembers && message.addedGroupMembers.length))
                                    message.addedGroupMembers = [];
                                message.addedGroupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.removedGroupMembers && message.removedGroupMembers.length))
                                    message.removedGroupMembers = [];
                                message.removedGroupMembers.push($root.switchyard.controlplane.v1.GroupMember.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return EgressGroupPatch;
            })();

            v1.NetworkPolicyNodeStatus = (function() {

                /**
                 * Properties of a NetworkPolicyNodeStatus.
                 * @typedef {Object} switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties
                 * @property {string|null} [nodeName] NetworkPolicyNodeStatus nodeName
                 * @property {number|Long|null} [generation] NetworkPolicyNodeStatus generation
                 * @property {boolean|null} [realizationFailure] NetworkPolicyNodeStatus realizationFailure
                 * @property {string|null} [message] NetworkPolicyNodeStatus message
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NetworkPolicyNodeStatus.
                 * @memberof switchyard.controlplane.v1
                 * @interface INetworkPolicyNodeStatus
                 * @augments switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties instead.
                 */

                /**
                 * Shape of a NetworkPolicyNodeStatus.
                 * @typedef {switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties} switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Shape
                 */

                /**
                 * Constructs a new NetworkPolicyNodeStatus.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NetworkPolicyNodeStatus.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NetworkPolicyNodeStatus = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NetworkPolicyNodeStatus nodeName.
                 * @member {string} nodeName
                 * @memberof switchyard.controlplane.v1.NetworkPolicyNodeStatus
                 * @instance
                 */
                NetworkPolicyNodeStatus.prototype.nodeName = "";

                /**
                 * NetworkPolicyNodeStatus generation.
                 * @member {number|Long} generation
                 * @memberof switchyard.controlplane.v1.NetworkPolicyNodeStatus
                 * @instance
                 */
                NetworkPolicyNodeStatus.prototype.generation = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

                /**
                 * NetworkPolicyNodeStatus realizationFailure.
                 * @member {boolean|null|undefined} realizationFailure
                 * @memberof switchyard.controlplane.v1.NetworkPolicyNodeStatus
                 * @instance
                 */
                NetworkPolicyNodeStatus.prototype.realizationFailure = null;

                /**
                 * NetworkPolicyNodeStatus message.
                 * @member {string|null|undefined} message
                 * @memberof switchyard.controlplane.v1.NetworkPolicyNodeStatus
                 * @instance
                 */
                NetworkPolicyNodeStatus.prototype.message = null;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicyNodeStatus.prototype, "_realizationFailure", {
                    get: $util.oneOfGetter($oneOfFields = ["realizationFailure"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(NetworkPolicyNodeStatus.prototype, "_message", {
                    get: $util.oneOfGetter($oneOfFields = ["message"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified NetworkPolicyNodeStatus message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyNodeStatus.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyNodeStatus
                 * @static
                 * @param {switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties} message NetworkPolicyNodeStatus message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NetworkPolicyNodeStatus.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.nodeName != null && $Object.hasOwnProperty.call(message, "nodeName") && message.nodeName !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.nodeName);
                    if (message.generation != null && $Object.hasOwnProperty.call(message, "generation") && (typeof message.generation === "object" ? message.generation.low || message.generation.high : message.generation !== 0))
                        writer.uint32(/* id 2, wireType 0 =*/16).int64(message.generation);
                    if (message.realizationFailure != null && $Object.hasOwnProperty.call(message, "realizationFailure"))
                        writer.uint32(/* id 3, wireType 0 =*/24).bool(message.realizationFailure);
                    if (message.message != null && $Object.hasOwnProperty.call(message, "message"))
                        writer.uint32(/* id 4, wireType 2 =*/34).string(message.message);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NetworkPolicyNodeStatus message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyNodeStatus
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyNodeStatus & switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Shape} NetworkPolicyNodeStatus
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NetworkPolicyNodeStatus.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NetworkPolicyNodeStatus();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.nodeName = value;
                                else
                                    delete message.nodeName;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 0)
                                    break;
                                if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                    message.generation = value;
                                else
                                    delete message.generation;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 0)
                                    break;
                                message.realizationFailure = reader.bool();
                                message._realizationFailure = "realizationFailure";
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                message.message = reader.stringVerify();
                                message._message = "message";
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NetworkPolicyNodeStatus;
            })();

            v1.NetworkPolicyStatus = (function() {

                /**
                 * Properties of a NetworkPolicyStatus.
                 * @typedef {Object} switchyard.controlplane.v1.NetworkPolicyStatus.$Properties
                 * @property {string|null} [name] NetworkPolicyStatus name
                 * @property {Array.<switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties>|null} [nodes] NetworkPolicyStatus nodes
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a NetworkPolicyStatus.
                 * @memberof switchyard.controlplane.v1
                 * @interface INetworkPolicyStatus
                 * @augments switchyard.controlplane.v1.NetworkPolicyStatus.$Properties
                 * @deprecated Use switchyard.controlplane.v1.NetworkPolicyStatus.$Properties instead.
                 */

                /**
                 * Shape of a NetworkPolicyStatus.
                 * @typedef {switchyard.controlplane.v1.NetworkPolicyStatus.$Properties} switchyard.controlplane.v1.NetworkPolicyStatus.$Shape
                 */

                /**
                 * Constructs a new NetworkPolicyStatus.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a NetworkPolicyStatus.
                 * @constructor
                 * @param {switchyard.controlplane.v1.NetworkPolicyStatus.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const NetworkPolicyStatus = function (properties) {
                    this.nodes = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * NetworkPolicyStatus name.
                 * @member {string} name
                 * @memberof switchyard.controlplane.v1.NetworkPolicyStatus
                 * @instance
                 */
                NetworkPolicyStatus.prototype.name = "";

                /**
                 * NetworkPolicyStatus nodes.
                 * @member {Array.<switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties>} nodes
                 * @memberof switchyard.controlplane.v1.NetworkPolicyStatus
                 * @instance
                 */
                NetworkPolicyStatus.prototype.nodes = $util.emptyArray;

                /**
                 * Encodes the specified NetworkPolicyStatus message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyStatus.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyStatus
                 * @static
                 * @param {switchyard.controlplane.v1.NetworkPolicyStatus.$Properties} message NetworkPolicyStatus message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                NetworkPolicyStatus.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                    if (message.nodes != null && message.nodes.length)
                        for (let i = 0; i < message.nodes.length; ++i)
                            $root.switchyard.controlplane.v1.NetworkPolicyNodeStatus.encode(message.nodes[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a NetworkPolicyStatus message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.NetworkPolicyStatus
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyStatus & switchyard.controlplane.v1.NetworkPolicyStatus.$Shape} NetworkPolicyStatus
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                NetworkPolicyStatus.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.NetworkPolicyStatus();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.name = value;
                                else
                                    delete message.name;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.nodes && message.nodes.length))
                                    message.nodes = [];
                                message.nodes.push($root.switchyard.controlplane.v1.NetworkPolicyNodeStatus.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return NetworkPolicyStatus;
            })();

            v1.AgentCondition = (function() {

                /**
                 * Properties of an AgentCondition.
                 * @typedef {Object} switchyard.controlplane.v1.AgentCondition.$Properties
                 * @property {string|null} [type] AgentCondition type
                 * @property {switchyard.controlplane.v1.ConditionStatus|null} [status] AgentCondition status
                 * @property {string|null} [lastHeartbeatTime] AgentCondition lastHeartbeatTime
                 * @property {string|null} [reason] AgentCondition reason
                 * @property {string|null} [message] AgentCondition message
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an AgentCondition.
                 * @memberof switchyard.controlplane.v1
                 * @interface IAgentCondition
                 * @augments switchyard.controlplane.v1.AgentCondition.$Properties
                 * @deprecated Use switchyard.controlplane.v1.AgentCondition.$Properties instead.
                 */

                /**
                 * Shape of an AgentCondition.
                 * @typedef {switchyard.controlplane.v1.AgentCondition.$Properties} switchyard.controlplane.v1.AgentCondition.$Shape
                 */

                /**
                 * Constructs a new AgentCondition.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an AgentCondition.
                 * @constructor
                 * @param {switchyard.controlplane.v1.AgentCondition.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const AgentCondition = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * AgentCondition type.
                 * @member {string} type
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @instance
                 */
                AgentCondition.prototype.type = "";

                /**
                 * AgentCondition status.
                 * @member {switchyard.controlplane.v1.ConditionStatus} status
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @instance
                 */
                AgentCondition.prototype.status = 0;

                /**
                 * AgentCondition lastHeartbeatTime.
                 * @member {string|null|undefined} lastHeartbeatTime
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @instance
                 */
                AgentCondition.prototype.lastHeartbeatTime = null;

                /**
                 * AgentCondition reason.
                 * @member {string|null|undefined} reason
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @instance
                 */
                AgentCondition.prototype.reason = null;

                /**
                 * AgentCondition message.
                 * @member {string|null|undefined} message
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @instance
                 */
                AgentCondition.prototype.message = null;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(AgentCondition.prototype, "_lastHeartbeatTime", {
                    get: $util.oneOfGetter($oneOfFields = ["lastHeartbeatTime"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(AgentCondition.prototype, "_reason", {
                    get: $util.oneOfGetter($oneOfFields = ["reason"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(AgentCondition.prototype, "_message", {
                    get: $util.oneOfGetter($oneOfFields = ["message"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified AgentCondition message. Does not implicitly {@link switchyard.controlplane.v1.AgentCondition.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @static
                 * @param {switchyard.controlplane.v1.AgentCondition.$Properties} message AgentCondition message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                AgentCondition.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.type != null && $Object.hasOwnProperty.call(message, "type") && message.type !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.type);
                    if (message.status != null && $Object.hasOwnProperty.call(message, "status") && message.status !== 0)
                        writer.uint32(/* id 2, wireType 0 =*/16).int32(message.status);
                    if (message.lastHeartbeatTime != null && $Object.hasOwnProperty.call(message, "lastHeartbeatTime"))
                        writer.uint32(/* id 3, wireType 2 =*/26).string(message.lastHeartbeatTime);
                    if (message.reason != null && $Object.hasOwnProperty.call(message, "reason"))
                        writer.uint32(/* id 4, wireType 2 =*/34).string(message.reason);
                    if (message.message != null && $Object.hasOwnProperty.call(message, "message"))
                        writer.uint32(/* id 5, wireType 2 =*/42).string(message.message);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an AgentCondition message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.AgentCondition
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AgentCondition & switchyard.controlplane.v1.AgentCondition.$Shape} AgentCondition
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                AgentCondition.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.AgentCondition();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.type = value;
                                else
                                    delete message.type;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.status = value;
                                else
                                    delete message.status;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                message.lastHeartbeatTime = reader.stringVerify();
                                message._lastHeartbeatTime = "lastHeartbeatTime";
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                message.reason = reader.stringVerify();
                                message._reason = "reason";
                                continue;
                            }
                        case 5: {
                                if (wireType !== 2)
                                    break;
                                message.message = reader.stringVerify();
                                message._message = "message";
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return AgentCondition;
            })();

            v1.AgentInfo = (function() {

                /**
                 * Properties of an AgentInfo.
                 * @typedef {Object} switchyard.controlplane.v1.AgentInfo.$Properties
                 * @property {string|null} [nodeName] AgentInfo nodeName
                 * @property {string|null} [version] AgentInfo version
                 * @property {switchyard.controlplane.v1.PodReference.$Properties|null} [podRef] AgentInfo podRef
                 * @property {Array.<string>|null} [nodeSubnets] AgentInfo nodeSubnets
                 * @property {number|null} [networkPolicyNum] AgentInfo networkPolicyNum
                 * @property {number|null} [addressGroupNum] AgentInfo addressGroupNum
                 * @property {number|null} [appliedToGroupNum] AgentInfo appliedToGroupNum
                 * @property {number|null} [localPodNum] AgentInfo localPodNum
                 * @property {string|null} [ovsVersion] AgentInfo ovsVersion
                 * @property {string|null} [bridgeName] AgentInfo bridgeName
                 * @property {Object.<string,number>|null} [flowTable] AgentInfo flowTable
                 * @property {boolean|null} [hasFlowTable] AgentInfo hasFlowTable
                 * @property {Array.<switchyard.controlplane.v1.AgentCondition.$Properties>|null} [conditions] AgentInfo conditions
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of an AgentInfo.
                 * @memberof switchyard.controlplane.v1
                 * @interface IAgentInfo
                 * @augments switchyard.controlplane.v1.AgentInfo.$Properties
                 * @deprecated Use switchyard.controlplane.v1.AgentInfo.$Properties instead.
                 */

                /**
                 * Shape of an AgentInfo.
                 * @typedef {switchyard.controlplane.v1.AgentInfo.$Properties} switchyard.controlplane.v1.AgentInfo.$Shape
                 */

                /**
                 * Constructs a new AgentInfo.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents an AgentInfo.
                 * @constructor
                 * @param {switchyard.controlplane.v1.AgentInfo.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const AgentInfo = function (properties) {
                    this.nodeSubnets = [];
                    this.flowTable = {};
                    this.conditions = [];
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * AgentInfo nodeName.
                 * @member {string} nodeName
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.nodeName = "";

                /**
                 * AgentInfo version.
                 * @member {string} version
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.version = "";

                /**
                 * AgentInfo podRef.
                 * @member {switchyard.controlplane.v1.PodReference.$Properties|null|undefined} podRef
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.podRef = null;

                /**
                 * AgentInfo nodeSubnets.
                 * @member {Array.<string>} nodeSubnets
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.nodeSubnets = $util.emptyArray;

                /**
                 * AgentInfo networkPolicyNum.
                 * @member {number} networkPolicyNum
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.networkPolicyNum = 0;

                /**
                 * AgentInfo addressGroupNum.
                 * @member {number} addressGroupNum
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.addressGroupNum = 0;

                /**
                 * AgentInfo appliedToGroupNum.
                 * @member {number} appliedToGroupNum
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.appliedToGroupNum = 0;

                /**
                 * AgentInfo localPodNum.
                 * @member {number} localPodNum
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.localPodNum = 0;

                /**
                 * AgentInfo ovsVersion.
                 * @member {string|null|undefined} ovsVersion
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.ovsVersion = null;

                /**
                 * AgentInfo bridgeName.
                 * @member {string|null|undefined} bridgeName
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.bridgeName = null;

                /**
                 * AgentInfo flowTable.
                 * @member {Object.<string,number>} flowTable
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.flowTable = $util.emptyObject;

                /**
                 * AgentInfo hasFlowTable.
                 * @member {boolean} hasFlowTable
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.hasFlowTable = false;

                /**
                 * AgentInfo conditions.
                 * @member {Array.<switchyard.controlplane.v1.AgentCondition.$Properties>} conditions
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @instance
                 */
                AgentInfo.prototype.conditions = $util.emptyArray;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(AgentInfo.prototype, "_ovsVersion", {
                    get: $util.oneOfGetter($oneOfFields = ["ovsVersion"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(AgentInfo.prototype, "_bridgeName", {
                    get: $util.oneOfGetter($oneOfFields = ["bridgeName"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified AgentInfo message. Does not implicitly {@link switchyard.controlplane.v1.AgentInfo.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @static
                 * @param {switchyard.controlplane.v1.AgentInfo.$Properties} message AgentInfo message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                AgentInfo.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.nodeName != null && $Object.hasOwnProperty.call(message, "nodeName") && message.nodeName !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.nodeName);
                    if (message.version != null && $Object.hasOwnProperty.call(message, "version") && message.version !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.version);
                    if (message.podRef != null && $Object.hasOwnProperty.call(message, "podRef"))
                        $root.switchyard.controlplane.v1.PodReference.encode(message.podRef, writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                    if (message.nodeSubnets != null && message.nodeSubnets.length)
                        for (let i = 0; i < message.nodeSubnets.length; ++i)
                            writer.uint32(/* id 4, wireType 2 =*/34).string(message.nodeSubnets[i]);
                    if (message.networkPolicyNum != null && $Object.hasOwnProperty.call(message, "networkPolicyNum") && message.networkPolicyNum !== 0)
                        writer.uint32(/* id 5, wireType 0 =*/40).int32(message.networkPolicyNum);
                    if (message.addressGroupNum != null && $Object.hasOwnProperty.call(message, "addressGroupNum") && message.addressGroupNum !== 0)
                        writer.uint32(/* id 6, wireType 0 =*/48).int32(message.addressGroupNum);
                    if (message.appliedToGroupNum != null && $Object.hasOwnProperty.call(message, "appliedToGroupNum") && message.appliedToGroupNum !== 0)
                        writer.uint32(/* id 7, wireType 0 =*/56).int32(message.appliedToGroupNum);
                    if (message.localPodNum != null && $Object.hasOwnProperty.call(message, "localPodNum") && message.localPodNum !== 0)
                        writer.uint32(/* id 8, wireType 0 =*/64).int32(message.localPodNum);
                    if (message.ovsVersion != null && $Object.hasOwnProperty.call(message, "ovsVersion"))
                        writer.uint32(/* id 9, wireType 2 =*/74).string(message.ovsVersion);
                    if (message.bridgeName != null && $Object.hasOwnProperty.call(message, "bridgeName"))
                        writer.uint32(/* id 10, wireType 2 =*/82).string(message.bridgeName);
                    if (message.flowTable != null && $Object.hasOwnProperty.call(message, "flowTable"))
                        for (let keys = $Object.keys(message.flowTable), i = 0; i < keys.length; ++i)
                            writer.uint32(/* id 11, wireType 2 =*/90).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]).uint32(/* id 2, wireType 0 =*/16).int32(message.flowTable[keys[i]]).ldelim();
                    if (message.hasFlowTable != null && $Object.hasOwnProperty.call(message, "hasFlowTable") && message.hasFlowTable !== false)
                        writer.uint32(/* id 12, wireType 0 =*/96).bool(message.hasFlowTable);
                    if (message.conditions != null && message.conditions.length)
                        for (let i = 0; i < message.conditions.length; ++i)
                            $root.switchyard.controlplane.v1.AgentCondition.encode(message.conditions[i], writer.uint32(/* id 13, wireType 2 =*/106).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes an AgentInfo message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.AgentInfo
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AgentInfo & switchyard.controlplane.v1.AgentInfo.$Shape} AgentInfo
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                AgentInfo.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, key, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.AgentInfo();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.nodeName = value;
                                else
                                    delete message.nodeName;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.version = value;
                                else
                                    delete message.version;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                message.podRef = $root.switchyard.controlplane.v1.PodReference.decode(reader, reader.size(), $undefined, _depth + 1, message.podRef);
                                continue;
                            }
                        case 4: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.nodeSubnets && message.nodeSubnets.length))
                                    message.nodeSubnets = [];
                                message.nodeSubnets.push(reader.stringVerify());
                                continue;
                            }
                        case 5: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.networkPolicyNum = value;
                                else
                                    delete message.networkPolicyNum;
                                continue;
                            }
                        case 6: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.addressGroupNum = value;
                                else
                                    delete message.addressGroupNum;
                                continue;
                            }
                        case 7: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.appliedToGroupNum = value;
                                else
                                    delete message.appliedToGroupNum;
                                continue;
                            }
                        case 8: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.localPodNum = value;
                                else
                                    delete message.localPodNum;
                                continue;
                            }
                        case 9: {
                                if (wireType !== 2)
                                    break;
                                message.ovsVersion = reader.stringVerify();
                                message._ovsVersion = "ovsVersion";
                                continue;
                            }
                        case 10: {
                                if (wireType !== 2)
                                    break;
                                message.bridgeName = reader.stringVerify();
                                message._bridgeName = "bridgeName";
                                continue;
                            }
                        case 11: {
                                if (wireType !== 2)
                                    break;
                                if (message.flowTable === $util.emptyObject)
                                    message.flowTable = {};
                                let end2 = reader.size() + reader.pos;
                                if (end2 > reader.len)
                                    throw $RangeError("index out of range");
                                reader.len = end2;
                                key = "";
                                value = 0;
                                while (reader.pos < end2) {
                                    let tag2 = reader.tag();
                                    wireType = tag2 & 7;
                                    switch (tag2 >>>= 3) {
                                    case 1:
                                        if (wireType !== 2)
                                            break;
                                        key = reader.stringVerify();
                                        continue;
                                    case 2:
                                        if (wireType !== 0)
                                            break;
                                        value = reader.int32();
                                        continue;
                                    }
                                    reader.skipType(wireType, _depth, tag2);
                                }
                                if (reader.pos !== end2)
                                    throw $RangeError("index out of range");
                                reader.len = end;
                                if (key === "__proto__")
                                    $util.makeProp(message.flowTable, key);
                                message.flowTable[key] = value;
                                continue;
                            }
                        case 12: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.bool())
                                    message.hasFlowTable = value;
                                else
                                    delete message.hasFlowTable;
                                continue;
                            }
                        case 13: {
                                if (wireType !== 2)
                                    break;
                                if (!(message.conditions && message.conditions.length))
                                    message.conditions = [];
                                message.conditions.push($root.switchyard.controlplane.v1.AgentCondition.decode(reader, reader.size(), $undefined, _depth + 1));
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return AgentInfo;
            })();

            v1.Bookmark = (function() {

                /**
                 * Properties of a Bookmark.
                 * @typedef {Object} switchyard.controlplane.v1.Bookmark.$Properties
                 * @property {string|null} [resourceVersion] Bookmark resourceVersion
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a Bookmark.
                 * @memberof switchyard.controlplane.v1
                 * @interface IBookmark
                 * @augments switchyard.controlplane.v1.Bookmark.$Properties
                 * @deprecated Use switchyard.controlplane.v1.Bookmark.$Properties instead.
                 */

                /**
                 * Shape of a Bookmark.
                 * @typedef {switchyard.controlplane.v1.Bookmark.$Properties} switchyard.controlplane.v1.Bookmark.$Shape
                 */

                /**
                 * Constructs a new Bookmark.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a Bookmark.
                 * @constructor
                 * @param {switchyard.controlplane.v1.Bookmark.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const Bookmark = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * Bookmark resourceVersion.
                 * @member {string} resourceVersion
                 * @memberof switchyard.controlplane.v1.Bookmark
                 * @instance
                 */
                Bookmark.prototype.resourceVersion = "";

                /**
                 * Encodes the specified Bookmark message. Does not implicitly {@link switchyard.controlplane.v1.Bookmark.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.Bookmark
                 * @static
                 * @param {switchyard.controlplane.v1.Bookmark.$Properties} message Bookmark message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                Bookmark.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.resourceVersion != null && $Object.hasOwnProperty.call(message, "resourceVersion") && message.resourceVersion !== "")
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.resourceVersion);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a Bookmark message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.Bookmark
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.Bookmark & switchyard.controlplane.v1.Bookmark.$Shape} Bookmark
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                Bookmark.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.Bookmark();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.resourceVersion = value;
                                else
                                    delete message.resourceVersion;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return Bookmark;
            })();

            v1.Status = (function() {

                /**
                 * Properties of a Status.
                 * @typedef {Object} switchyard.controlplane.v1.Status.$Properties
                 * @property {number|null} [code] Status code
                 * @property {string|null} [reason] Status reason
                 * @property {string|null} [message] Status message
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a Status.
                 * @memberof switchyard.controlplane.v1
                 * @interface IStatus
                 * @augments switchyard.controlplane.v1.Status.$Properties
                 * @deprecated Use switchyard.controlplane.v1.Status.$Properties instead.
                 */

                /**
                 * Shape of a Status.
                 * @typedef {switchyard.controlplane.v1.Status.$Properties} switchyard.controlplane.v1.Status.$Shape
                 */

                /**
                 * Constructs a new Status.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a Status.
                 * @constructor
                 * @param {switchyard.controlplane.v1.Status.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const Status = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * Status code.
                 * @member {number} code
                 * @memberof switchyard.controlplane.v1.Status
                 * @instance
                 */
                Status.prototype.code = 0;

                /**
                 * Status reason.
                 * @member {string} reason
                 * @memberof switchyard.controlplane.v1.Status
                 * @instance
                 */
                Status.prototype.reason = "";

                /**
                 * Status message.
                 * @member {string} message
                 * @memberof switchyard.controlplane.v1.Status
                 * @instance
                 */
                Status.prototype.message = "";

                /**
                 * Encodes the specified Status message. Does not implicitly {@link switchyard.controlplane.v1.Status.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.Status
                 * @static
                 * @param {switchyard.controlplane.v1.Status.$Properties} message Status message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                Status.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.code != null && $Object.hasOwnProperty.call(message, "code") && message.code !== 0)
                        writer.uint32(/* id 1, wireType 0 =*/8).int32(message.code);
                    if (message.reason != null && $Object.hasOwnProperty.call(message, "reason") && message.reason !== "")
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.reason);
                    if (message.message != null && $Object.hasOwnProperty.call(message, "message") && message.message !== "")
                        writer.uint32(/* id 3, wireType 2 =*/26).string(message.message);
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a Status message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.Status
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.Status & switchyard.controlplane.v1.Status.$Shape} Status
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                Status.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.Status();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.code = value;
                                else
                                    delete message.code;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.reason = value;
                                else
                                    delete message.reason;
                                continue;
                            }
                        case 3: {
                                if (wireType !== 2)
                                    break;
                                if ((value = reader.stringVerify()).length)
                                    message.message = value;
                                else
                                    delete message.message;
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return Status;
            })();

            v1.WatchEvent = (function() {

                /**
                 * Properties of a WatchEvent.
                 * @typedef {Object} switchyard.controlplane.v1.WatchEvent.$Properties
                 * @property {switchyard.controlplane.v1.EventType|null} [type] WatchEvent type
                 * @property {string|null} [resourceVersion] WatchEvent resourceVersion
                 * @property {switchyard.controlplane.v1.NetworkPolicy.$Properties|null} [networkPolicy] WatchEvent networkPolicy
                 * @property {switchyard.controlplane.v1.AddressGroup.$Properties|null} [addressGroup] WatchEvent addressGroup
                 * @property {switchyard.controlplane.v1.AddressGroupPatch.$Properties|null} [addressGroupPatch] WatchEvent addressGroupPatch
                 * @property {switchyard.controlplane.v1.AppliedToGroup.$Properties|null} [appliedToGroup] WatchEvent appliedToGroup
                 * @property {switchyard.controlplane.v1.AppliedToGroupPatch.$Properties|null} [appliedToGroupPatch] WatchEvent appliedToGroupPatch
                 * @property {switchyard.controlplane.v1.NetworkPolicyStatus.$Properties|null} [networkPolicyStatus] WatchEvent networkPolicyStatus
                 * @property {switchyard.controlplane.v1.Bookmark.$Properties|null} [bookmark] WatchEvent bookmark
                 * @property {switchyard.controlplane.v1.Status.$Properties|null} [status] WatchEvent status
                 * @property {switchyard.controlplane.v1.EgressGroup.$Properties|null} [egressGroup] WatchEvent egressGroup
                 * @property {switchyard.controlplane.v1.EgressGroupPatch.$Properties|null} [egressGroupPatch] WatchEvent egressGroupPatch
                 * @property {"networkPolicy"|"addressGroup"|"addressGroupPatch"|"appliedToGroup"|"appliedToGroupPatch"|"networkPolicyStatus"|"bookmark"|"status"|"egressGroup"|"egressGroupPatch"} [object] WatchEvent object
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */

                /**
                 * Properties of a WatchEvent.
                 * @memberof switchyard.controlplane.v1
                 * @interface IWatchEvent
                 * @augments switchyard.controlplane.v1.WatchEvent.$Properties
                 * @deprecated Use switchyard.controlplane.v1.WatchEvent.$Properties instead.
                 */

                /**
                 * Narrowed shape of a WatchEvent.
                 * @typedef {{
                 *   type?: switchyard.controlplane.v1.EventType|null;
                 *   resourceVersion?: string|null;
                 *   networkPolicy?: switchyard.controlplane.v1.NetworkPolicy.$Shape|null;
                 *   addressGroup?: switchyard.controlplane.v1.AddressGroup.$Shape|null;
                 *   addressGroupPatch?: switchyard.controlplane.v1.AddressGroupPatch.$Shape|null;
                 *   appliedToGroup?: switchyard.controlplane.v1.AppliedToGroup.$Shape|null;
                 *   appliedToGroupPatch?: switchyard.controlplane.v1.AppliedToGroupPatch.$Shape|null;
                 *   networkPolicyStatus?: switchyard.controlplane.v1.NetworkPolicyStatus.$Shape|null;
                 *   bookmark?: switchyard.controlplane.v1.Bookmark.$Shape|null;
                 *   status?: switchyard.controlplane.v1.Status.$Shape|null;
                 *   egressGroup?: switchyard.controlplane.v1.EgressGroup.$Shape|null;
                 *   egressGroupPatch?: switchyard.controlplane.v1.EgressGroupPatch.$Shape|null;
                 *   $unknowns?: Array.<Uint8Array>;
                 * } & (
                 *   ({ object?: undefined; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "networkPolicy"; networkPolicy: switchyard.controlplane.v1.NetworkPolicy.$Shape; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "addressGroup"; networkPolicy?: null; addressGroup: switchyard.controlplane.v1.AddressGroup.$Shape; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "addressGroupPatch"; networkPolicy?: null; addressGroup?: null; addressGroupPatch: switchyard.controlplane.v1.AddressGroupPatch.$Shape; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "appliedToGroup"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup: switchyard.controlplane.v1.AppliedToGroup.$Shape; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "appliedToGroupPatch"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch: switchyard.controlplane.v1.AppliedToGroupPatch.$Shape; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "networkPolicyStatus"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus: switchyard.controlplane.v1.NetworkPolicyStatus.$Shape; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "bookmark"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark: switchyard.controlplane.v1.Bookmark.$Shape; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "status"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status: switchyard.controlplane.v1.Status.$Shape; egressGroup?: null; egressGroupPatch?: null }|{ object?: "egressGroup"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup: switchyard.controlplane.v1.EgressGroup.$Shape; egressGroupPatch?: null }|{ object?: "egressGroupPatch"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch: switchyard.controlplane.v1.EgressGroupPatch.$Shape })
                 * )} switchyard.controlplane.v1.WatchEvent.$Shape
                 */

                /**
                 * Constructs a new WatchEvent.
                 * @memberof switchyard.controlplane.v1
                 * @classdesc Represents a WatchEvent.
                 * @constructor
                 * @param {switchyard.controlplane.v1.WatchEvent.$Properties=} [properties] Properties to set
                 * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
                 */
                const WatchEvent = function (properties) {
                    if (properties)
                        for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                            if (properties[keys[i]] != null && keys[i] !== "__proto__")
                                this[keys[i]] = properties[keys[i]];
                };

                /**
                 * WatchEvent type.
                 * @member {switchyard.controlplane.v1.EventType} type
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.type = 0;

                /**
                 * WatchEvent resourceVersion.
                 * @member {string|null|undefined} resourceVersion
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.resourceVersion = null;

                /**
                 * WatchEvent networkPolicy.
                 * @member {switchyard.controlplane.v1.NetworkPolicy.$Properties|null|undefined} networkPolicy
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.networkPolicy = null;

                /**
                 * WatchEvent addressGroup.
                 * @member {switchyard.controlplane.v1.AddressGroup.$Properties|null|undefined} addressGroup
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.addressGroup = null;

                /**
                 * WatchEvent addressGroupPatch.
                 * @member {switchyard.controlplane.v1.AddressGroupPatch.$Properties|null|undefined} addressGroupPatch
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.addressGroupPatch = null;

                /**
                 * WatchEvent appliedToGroup.
                 * @member {switchyard.controlplane.v1.AppliedToGroup.$Properties|null|undefined} appliedToGroup
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.appliedToGroup = null;

                /**
                 * WatchEvent appliedToGroupPatch.
                 * @member {switchyard.controlplane.v1.AppliedToGroupPatch.$Properties|null|undefined} appliedToGroupPatch
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.appliedToGroupPatch = null;

                /**
                 * WatchEvent networkPolicyStatus.
                 * @member {switchyard.controlplane.v1.NetworkPolicyStatus.$Properties|null|undefined} networkPolicyStatus
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.networkPolicyStatus = null;

                /**
                 * WatchEvent bookmark.
                 * @member {switchyard.controlplane.v1.Bookmark.$Properties|null|undefined} bookmark
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.bookmark = null;

                /**
                 * WatchEvent status.
                 * @member {switchyard.controlplane.v1.Status.$Properties|null|undefined} status
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.status = null;

                /**
                 * WatchEvent egressGroup.
                 * @member {switchyard.controlplane.v1.EgressGroup.$Properties|null|undefined} egressGroup
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.egressGroup = null;

                /**
                 * WatchEvent egressGroupPatch.
                 * @member {switchyard.controlplane.v1.EgressGroupPatch.$Properties|null|undefined} egressGroupPatch
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                WatchEvent.prototype.egressGroupPatch = null;

                // OneOf field names bound to virtual getters and setters
                let $oneOfFields;

                // Virtual OneOf for proto3 optional field
                $Object.defineProperty(WatchEvent.prototype, "_resourceVersion", {
                    get: $util.oneOfGetter($oneOfFields = ["resourceVersion"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * WatchEvent object.
                 * @member {"networkPolicy"|"addressGroup"|"addressGroupPatch"|"appliedToGroup"|"appliedToGroupPatch"|"networkPolicyStatus"|"bookmark"|"status"|"egressGroup"|"egressGroupPatch"|undefined} object
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @instance
                 */
                $Object.defineProperty(WatchEvent.prototype, "object", {
                    get: $util.oneOfGetter($oneOfFields = ["networkPolicy", "addressGroup", "addressGroupPatch", "appliedToGroup", "appliedToGroupPatch", "networkPolicyStatus", "bookmark", "status", "egressGroup", "egressGroupPatch"]),
                    set: $util.oneOfSetter($oneOfFields)
                });

                /**
                 * Encodes the specified WatchEvent message. Does not implicitly {@link switchyard.controlplane.v1.WatchEvent.verify|verify} messages.
                 * @function encode
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @static
                 * @param {switchyard.controlplane.v1.WatchEvent.$Properties} message WatchEvent message or plain object to encode
                 * @param {$protobuf.Writer} [writer] Writer to encode to
                 * @returns {$protobuf.Writer} Writer
                 */
                WatchEvent.encode = function (message, writer, _depth) {
                    if (!writer)
                        writer = $Writer.create();
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $util.recursionLimit)
                        throw $Error("max depth exceeded");
                    if (message.type != null && $Object.hasOwnProperty.call(message, "type") && message.type !== 0)
                        writer.uint32(/* id 1, wireType 0 =*/8).int32(message.type);
                    if (message.resourceVersion != null && $Object.hasOwnProperty.call(message, "resourceVersion"))
                        writer.uint32(/* id 2, wireType 2 =*/18).string(message.resourceVersion);
                    if (message.networkPolicy != null && $Object.hasOwnProperty.call(message, "networkPolicy"))
                        $root.switchyard.controlplane.v1.NetworkPolicy.encode(message.networkPolicy, writer.uint32(/* id 10, wireType 2 =*/82).fork(), _depth + 1).ldelim();
                    if (message.addressGroup != null && $Object.hasOwnProperty.call(message, "addressGroup"))
                        $root.switchyard.controlplane.v1.AddressGroup.encode(message.addressGroup, writer.uint32(/* id 11, wireType 2 =*/90).fork(), _depth + 1).ldelim();
                    if (message.addressGroupPatch != null && $Object.hasOwnProperty.call(message, "addressGroupPatch"))
                        $root.switchyard.controlplane.v1.AddressGroupPatch.encode(message.addressGroupPatch, writer.uint32(/* id 12, wireType 2 =*/98).fork(), _depth + 1).ldelim();
                    if (message.appliedToGroup != null && $Object.hasOwnProperty.call(message, "appliedToGroup"))
                        $root.switchyard.controlplane.v1.AppliedToGroup.encode(message.appliedToGroup, writer.uint32(/* id 13, wireType 2 =*/106).fork(), _depth + 1).ldelim();
                    if (message.appliedToGroupPatch != null && $Object.hasOwnProperty.call(message, "appliedToGroupPatch"))
                        $root.switchyard.controlplane.v1.AppliedToGroupPatch.encode(message.appliedToGroupPatch, writer.uint32(/* id 14, wireType 2 =*/114).fork(), _depth + 1).ldelim();
                    if (message.networkPolicyStatus != null && $Object.hasOwnProperty.call(message, "networkPolicyStatus"))
                        $root.switchyard.controlplane.v1.NetworkPolicyStatus.encode(message.networkPolicyStatus, writer.uint32(/* id 15, wireType 2 =*/122).fork(), _depth + 1).ldelim();
                    if (message.bookmark != null && $Object.hasOwnProperty.call(message, "bookmark"))
                        $root.switchyard.controlplane.v1.Bookmark.encode(message.bookmark, writer.uint32(/* id 16, wireType 2 =*/130).fork(), _depth + 1).ldelim();
                    if (message.status != null && $Object.hasOwnProperty.call(message, "status"))
                        $root.switchyard.controlplane.v1.Status.encode(message.status, writer.uint32(/* id 17, wireType 2 =*/138).fork(), _depth + 1).ldelim();
                    if (message.egressGroup != null && $Object.hasOwnProperty.call(message, "egressGroup"))
                        $root.switchyard.controlplane.v1.EgressGroup.encode(message.egressGroup, writer.uint32(/* id 18, wireType 2 =*/146).fork(), _depth + 1).ldelim();
                    if (message.egressGroupPatch != null && $Object.hasOwnProperty.call(message, "egressGroupPatch"))
                        $root.switchyard.controlplane.v1.EgressGroupPatch.encode(message.egressGroupPatch, writer.uint32(/* id 19, wireType 2 =*/154).fork(), _depth + 1).ldelim();
                    if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                        for (let i = 0; i < message.$unknowns.length; ++i)
                            writer.raw(message.$unknowns[i]);
                    return writer;
                };

                /**
                 * Decodes a WatchEvent message from the specified reader or buffer.
                 * @function decode
                 * @memberof switchyard.controlplane.v1.WatchEvent
                 * @static
                 * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
                 * @param {number} [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.WatchEvent & switchyard.controlplane.v1.WatchEvent.$Shape} WatchEvent
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                WatchEvent.decode = function (reader, length, _end, _depth, _target) {
                    if (!(reader instanceof $Reader))
                        reader = $Reader.create(reader);
                    if (_depth === $undefined)
                        _depth = 0;
                    if (_depth > $Reader.recursionLimit)
                        throw $Error("max depth exceeded");
                    let end, message, value;
                    if (length === $undefined)
                        end = reader.len;
                    else {
                        end = reader.pos + length;
                        if (end > reader.len)
                            throw $RangeError("index out of range");
                        length = reader.len;
                        reader.len = end;
                    }
                    message = _target || new $root.switchyard.controlplane.v1.WatchEvent();
                    while (reader.pos < end) {
                        let start = reader.pos;
                        let tag = reader.tag();
                        if (tag === _end) {
                            _end = $undefined;
                            break;
                        }
                        let wireType = tag & 7;
                        switch (tag >>>= 3) {
                        case 1: {
                                if (wireType !== 0)
                                    break;
                                if (value = reader.int32())
                                    message.type = value;
                                else
                                    delete message.type;
                                continue;
                            }
                        case 2: {
                                if (wireType !== 2)
                                    break;
                                message.resourceVersion = reader.stringVerify();
                                message._resourceVersion = "resourceVersion";
                                continue;
                            }
                        case 10: {
                                if (wireType !== 2)
                                    break;
                                message.networkPolicy = $root.switchyard.controlplane.v1.NetworkPolicy.decode(reader, reader.size(), $undefined, _depth + 1, message.networkPolicy);
                                message.object = "networkPolicy";
                                continue;
                            }
                        case 11: {
                                if (wireType !== 2)
                                    break;
                                message.addressGroup = $root.switchyard.controlplane.v1.AddressGroup.decode(reader, reader.size(), $undefined, _depth + 1, message.addressGroup);
                                message.object = "addressGroup";
                                continue;
                            }
                        case 12: {
                                if (wireType !== 2)
                                    break;
                                message.addressGroupPatch = $root.switchyard.controlplane.v1.AddressGroupPatch.decode(reader, reader.size(), $undefined, _depth + 1, message.addressGroupPatch);
                                message.object = "addressGroupPatch";
                                continue;
                            }
                        case 13: {
                                if (wireType !== 2)
                                    break;
                                message.appliedToGroup = $root.switchyard.controlplane.v1.AppliedToGroup.decode(reader, reader.size(), $undefined, _depth + 1, message.appliedToGroup);
                                message.object = "appliedToGroup";
                                continue;
                            }
                        case 14: {
                                if (wireType !== 2)
                                    break;
                                message.appliedToGroupPatch = $root.switchyard.controlplane.v1.AppliedToGroupPatch.decode(reader, reader.size(), $undefined, _depth + 1, message.appliedToGroupPatch);
                                message.object = "appliedToGroupPatch";
                                continue;
                            }
                        case 15: {
                                if (wireType !== 2)
                                    break;
                                message.networkPolicyStatus = $root.switchyard.controlplane.v1.NetworkPolicyStatus.decode(reader, reader.size(), $undefined, _depth + 1, message.networkPolicyStatus);
                                message.object = "networkPolicyStatus";
                                continue;
                            }
                        case 16: {
                                if (wireType !== 2)
                                    break;
                                message.bookmark = $root.switchyard.controlplane.v1.Bookmark.decode(reader, reader.size(), $undefined, _depth + 1, message.bookmark);
                                message.object = "bookmark";
                                continue;
                            }
                        case 17: {
                                if (wireType !== 2)
                                    break;
                                message.status = $root.switchyard.controlplane.v1.Status.decode(reader, reader.size(), $undefined, _depth + 1, message.status);
                                message.object = "status";
                                continue;
                            }
                        case 18: {
                                if (wireType !== 2)
                                    break;
                                message.egressGroup = $root.switchyard.controlplane.v1.EgressGroup.decode(reader, reader.size(), $undefined, _depth + 1, message.egressGroup);
                                message.object = "egressGroup";
                                continue;
                            }
                        case 19: {
                                if (wireType !== 2)
                                    break;
                                message.egressGroupPatch = $root.switchyard.controlplane.v1.EgressGroupPatch.decode(reader, reader.size(), $undefined, _depth + 1, message.egressGroupPatch);
                                message.object = "egressGroupPatch";
                                continue;
                            }
                        }
                        reader.skipType(wireType, _depth, tag);
                        if (!reader.discardUnknown) {
                            $util.makeProp(message, "$unknowns", false);
                            (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                        }
                    }
                    if (length !== $undefined) {
                        if (reader.pos !== end)
                            throw $RangeError("index out of range");
                        reader.len = length;
                    }
                    if (_end !== $undefined)
                        throw $Error("missing end group");
                    return message;
                };

                return WatchEvent;
            })();

            return v1;
        })();

        return controlplane;
    })();

    return switchyard;
})();

export {
  $root as default
};
