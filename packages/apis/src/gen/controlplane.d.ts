import * as $protobuf from "protobufjs";
import Long = require("long");

/** Namespace switchyard. */
export namespace switchyard {

    /** Namespace controlplane. */
    namespace controlplane {

        /** Namespace v1. */
        namespace v1 {

            /** NetworkPolicyType enum. */
            enum NetworkPolicyType {

                /** NETWORK_POLICY_TYPE_UNSPECIFIED value */
                NETWORK_POLICY_TYPE_UNSPECIFIED = 0,

                /** K8S_NETWORK_POLICY value */
                K8S_NETWORK_POLICY = 1,

                /** ANTREA_CLUSTER_NETWORK_POLICY value */
                ANTREA_CLUSTER_NETWORK_POLICY = 2,

                /** ANTREA_NETWORK_POLICY value */
                ANTREA_NETWORK_POLICY = 3,

                /** ADMIN_NETWORK_POLICY value */
                ADMIN_NETWORK_POLICY = 4,

                /** BASELINE_ADMIN_NETWORK_POLICY value */
                BASELINE_ADMIN_NETWORK_POLICY = 5
            }

            /** PolicyType enum. */
            enum PolicyType {

                /** POLICY_TYPE_UNSPECIFIED value */
                POLICY_TYPE_UNSPECIFIED = 0,

                /** POLICY_TYPE_INGRESS value */
                POLICY_TYPE_INGRESS = 1,

                /** POLICY_TYPE_EGRESS value */
                POLICY_TYPE_EGRESS = 2
            }

            /** Direction enum. */
            enum Direction {

                /** DIRECTION_UNSPECIFIED value */
                DIRECTION_UNSPECIFIED = 0,

                /** DIRECTION_IN value */
                DIRECTION_IN = 1,

                /** DIRECTION_OUT value */
                DIRECTION_OUT = 2
            }

            /** RuleAction enum. */
            enum RuleAction {

                /** RULE_ACTION_UNSPECIFIED value */
                RULE_ACTION_UNSPECIFIED = 0,

                /** RULE_ACTION_ALLOW value */
                RULE_ACTION_ALLOW = 1,

                /** RULE_ACTION_DROP value */
                RULE_ACTION_DROP = 2,

                /** RULE_ACTION_REJECT value */
                RULE_ACTION_REJECT = 3,

                /** RULE_ACTION_PASS value */
                RULE_ACTION_PASS = 4
            }

            /** Protocol enum. */
            enum Protocol {

                /** PROTOCOL_UNSPECIFIED value */
                PROTOCOL_UNSPECIFIED = 0,

                /** PROTOCOL_TCP value */
                PROTOCOL_TCP = 1,

                /** PROTOCOL_UDP value */
                PROTOCOL_UDP = 2,

                /** PROTOCOL_SCTP value */
                PROTOCOL_SCTP = 3,

                /** PROTOCOL_ICMP value */
                PROTOCOL_ICMP = 4,

                /** PROTOCOL_IGMP value */
                PROTOCOL_IGMP = 5
            }

            /** ServiceScope enum. */
            enum ServiceScope {

                /** SERVICE_SCOPE_UNSPECIFIED value */
                SERVICE_SCOPE_UNSPECIFIED = 0,

                /** SERVICE_SCOPE_CLUSTER value */
                SERVICE_SCOPE_CLUSTER = 1,

                /** SERVICE_SCOPE_CLUSTER_SET value */
                SERVICE_SCOPE_CLUSTER_SET = 2
            }

            /** EventType enum. */
            enum EventType {

                /** EVENT_TYPE_UNSPECIFIED value */
                EVENT_TYPE_UNSPECIFIED = 0,

                /** ADDED value */
                ADDED = 1,

                /** MODIFIED value */
                MODIFIED = 2,

                /** DELETED value */
                DELETED = 3,

                /** BOOKMARK value */
                BOOKMARK = 4,

                /** ERROR value */
                ERROR = 5
            }

            /** ConditionStatus enum. */
            enum ConditionStatus {

                /** CONDITION_STATUS_UNSPECIFIED value */
                CONDITION_STATUS_UNSPECIFIED = 0,

                /** CONDITION_STATUS_TRUE value */
                CONDITION_STATUS_TRUE = 1,

                /** CONDITION_STATUS_FALSE value */
                CONDITION_STATUS_FALSE = 2,

                /** CONDITION_STATUS_UNKNOWN value */
                CONDITION_STATUS_UNKNOWN = 3
            }

            /**
             * Properties of a NetworkPolicyReference.
             * @deprecated Use switchyard.controlplane.v1.NetworkPolicyReference.$Properties instead.
             */
            interface INetworkPolicyReference extends switchyard.controlplane.v1.NetworkPolicyReference.$Properties {
            }

            /** Represents a NetworkPolicyReference. */
            class NetworkPolicyReference {

                /**
                 * Constructs a new NetworkPolicyReference.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NetworkPolicyReference.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NetworkPolicyReference type. */
                type: switchyard.controlplane.v1.NetworkPolicyType;

                /** NetworkPolicyReference namespace. */
                namespace: string;

                /** NetworkPolicyReference name. */
                name: string;

                /** NetworkPolicyReference uid. */
                uid: string;

                /**
                 * Encodes the specified NetworkPolicyReference message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyReference.verify|verify} messages.
                 * @param message NetworkPolicyReference message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NetworkPolicyReference.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NetworkPolicyReference message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyReference & switchyard.controlplane.v1.NetworkPolicyReference.$Shape} NetworkPolicyReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NetworkPolicyReference & switchyard.controlplane.v1.NetworkPolicyReference.$Shape;
            }

            namespace NetworkPolicyReference {

                /** Properties of a NetworkPolicyReference. */
                interface $Properties {

                    /** NetworkPolicyReference type */
                    type?: (switchyard.controlplane.v1.NetworkPolicyType|null);

                    /** NetworkPolicyReference namespace */
                    namespace?: (string|null);

                    /** NetworkPolicyReference name */
                    name?: (string|null);

                    /** NetworkPolicyReference uid */
                    uid?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NetworkPolicyReference. */
                type $Shape = switchyard.controlplane.v1.NetworkPolicyReference.$Properties;
            }

            /**
             * Properties of a IPNet.
             * @deprecated Use switchyard.controlplane.v1.IPNet.$Properties instead.
             */
            interface IIPNet extends switchyard.controlplane.v1.IPNet.$Properties {
            }

            /** Represents a IPNet. */
            class IPNet {

                /**
                 * Constructs a new IPNet.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.IPNet.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** IPNet ip. */
                ip: Uint8Array;

                /** IPNet prefixLength. */
                prefixLength: number;

                /**
                 * Encodes the specified IPNet message. Does not implicitly {@link switchyard.controlplane.v1.IPNet.verify|verify} messages.
                 * @param message IPNet message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.IPNet.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a IPNet message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.IPNet & switchyard.controlplane.v1.IPNet.$Shape} IPNet
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.IPNet & switchyard.controlplane.v1.IPNet.$Shape;
            }

            namespace IPNet {

                /** Properties of a IPNet. */
                interface $Properties {

                    /** IPNet ip */
                    ip?: (Uint8Array|null);

                    /** IPNet prefixLength */
                    prefixLength?: (number|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a IPNet. */
                type $Shape = switchyard.controlplane.v1.IPNet.$Properties;
            }

            /**
             * Properties of a IPBlock.
             * @deprecated Use switchyard.controlplane.v1.IPBlock.$Properties instead.
             */
            interface IIPBlock extends switchyard.controlplane.v1.IPBlock.$Properties {
            }

            /** Represents a IPBlock. */
            class IPBlock {

                /**
                 * Constructs a new IPBlock.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.IPBlock.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** IPBlock cidr. */
                cidr?: (switchyard.controlplane.v1.IPNet.$Properties|null);

                /** IPBlock except. */
                except: switchyard.controlplane.v1.IPNet.$Properties[];

                /**
                 * Encodes the specified IPBlock message. Does not implicitly {@link switchyard.controlplane.v1.IPBlock.verify|verify} messages.
                 * @param message IPBlock message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.IPBlock.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a IPBlock message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.IPBlock & switchyard.controlplane.v1.IPBlock.$Shape} IPBlock
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.IPBlock & switchyard.controlplane.v1.IPBlock.$Shape;
            }

            namespace IPBlock {

                /** Properties of a IPBlock. */
                interface $Properties {

                    /** IPBlock cidr */
                    cidr?: (switchyard.controlplane.v1.IPNet.$Properties|null);

                    /** IPBlock except */
                    except?: (switchyard.controlplane.v1.IPNet.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a IPBlock. */
                type $Shape = switchyard.controlplane.v1.IPBlock.$Properties;
            }

            /**
             * Properties of a Service.
             * @deprecated Use switchyard.controlplane.v1.Service.$Properties instead.
             */
            interface IService extends switchyard.controlplane.v1.Service.$Properties {
            }

            /** Represents a Service. */
            class Service {

                /**
                 * Constructs a new Service.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.Service.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** Service protocol. */
                protocol: switchyard.controlplane.v1.Protocol;

                /** Service portNumber. */
                portNumber?: (number|null);

                /** Service portName. */
                portName?: (string|null);

                /** Service endPort. */
                endPort?: (number|null);

                /** Service srcPort. */
                srcPort?: (number|null);

                /** Service srcEndPort. */
                srcEndPort?: (number|null);

                /** Service icmpType. */
                icmpType?: (number|null);

                /** Service icmpCode. */
                icmpCode?: (number|null);

                /** Service igmpType. */
                igmpType?: (number|null);

                /** Service groupAddress. */
                groupAddress?: (Uint8Array|null);

                /** Service port. */
                port?: ("portNumber"|"portName");

                /**
                 * Encodes the specified Service message. Does not implicitly {@link switchyard.controlplane.v1.Service.verify|verify} messages.
                 * @param message Service message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.Service.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a Service message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.Service & switchyard.controlplane.v1.Service.$Shape} Service
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.Service & switchyard.controlplane.v1.Service.$Shape;
            }

            namespace Service {

                /** Properties of a Service. */
                interface $Properties {

                    /** Service protocol */
                    protocol?: (switchyard.controlplane.v1.Protocol|null);

                    /** Service portNumber */
                    portNumber?: (number|null);

                    /** Service portName */
                    portName?: (string|null);

                    /** Service endPort */
                    endPort?: (number|null);

                    /** Service srcPort */
                    srcPort?: (number|null);

                    /** Service srcEndPort */
                    srcEndPort?: (number|null);

                    /** Service icmpType */
                    icmpType?: (number|null);

                    /** Service icmpCode */
                    icmpCode?: (number|null);

                    /** Service igmpType */
                    igmpType?: (number|null);

                    /** Service groupAddress */
                    groupAddress?: (Uint8Array|null);

                    /** Service port */
                    port?: ("portNumber"|"portName");

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Narrowed shape of a Service. */
                type $Shape = {
                  protocol?: switchyard.controlplane.v1.Protocol|null;
                  portNumber?: number|null;
                  portName?: string|null;
                  endPort?: number|null;
                  srcPort?: number|null;
                  srcEndPort?: number|null;
                  icmpType?: number|null;
                  icmpCode?: number|null;
                  igmpType?: number|null;
                  groupAddress?: Uint8Array|null;
                  $unknowns?: Uint8Array[];
                } & (
                  ({ port?: undefined; portNumber?: null; portName?: null }|{ port?: "portNumber"; portNumber: number; portName?: null }|{ port?: "portName"; portNumber?: null; portName: string })
                );
            }

            /**
             * Properties of a ServiceReference.
             * @deprecated Use switchyard.controlplane.v1.ServiceReference.$Properties instead.
             */
            interface IServiceReference extends switchyard.controlplane.v1.ServiceReference.$Properties {
            }

            /** Represents a ServiceReference. */
            class ServiceReference {

                /**
                 * Constructs a new ServiceReference.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.ServiceReference.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** ServiceReference name. */
                name: string;

                /** ServiceReference namespace. */
                namespace: string;

                /** ServiceReference scope. */
                scope: switchyard.controlplane.v1.ServiceScope;

                /**
                 * Encodes the specified ServiceReference message. Does not implicitly {@link switchyard.controlplane.v1.ServiceReference.verify|verify} messages.
                 * @param message ServiceReference message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.ServiceReference.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a ServiceReference message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.ServiceReference & switchyard.controlplane.v1.ServiceReference.$Shape} ServiceReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.ServiceReference & switchyard.controlplane.v1.ServiceReference.$Shape;
            }

            namespace ServiceReference {

                /** Properties of a ServiceReference. */
                interface $Properties {

                    /** ServiceReference name */
                    name?: (string|null);

                    /** ServiceReference namespace */
                    namespace?: (string|null);

                    /** ServiceReference scope */
                    scope?: (switchyard.controlplane.v1.ServiceScope|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a ServiceReference. */
                type $Shape = switchyard.controlplane.v1.ServiceReference.$Properties;
            }

            /**
             * Properties of a NetworkPolicyPeer.
             * @deprecated Use switchyard.controlplane.v1.NetworkPolicyPeer.$Properties instead.
             */
            interface INetworkPolicyPeer extends switchyard.controlplane.v1.NetworkPolicyPeer.$Properties {
            }

            /** Represents a NetworkPolicyPeer. */
            class NetworkPolicyPeer {

                /**
                 * Constructs a new NetworkPolicyPeer.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NetworkPolicyPeer.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NetworkPolicyPeer addressGroups. */
                addressGroups: string[];

                /** NetworkPolicyPeer ipBlocks. */
                ipBlocks: switchyard.controlplane.v1.IPBlock.$Properties[];

                /** NetworkPolicyPeer fqdns. */
                fqdns: string[];

                /** NetworkPolicyPeer toServices. */
                toServices: switchyard.controlplane.v1.ServiceReference.$Properties[];

                /** NetworkPolicyPeer labelIdentities. */
                labelIdentities: number[];

                /** NetworkPolicyPeer hasFqdns. */
                hasFqdns: boolean;

                /** NetworkPolicyPeer hasToServices. */
                hasToServices: boolean;

                /** NetworkPolicyPeer hasLabelIdentities. */
                hasLabelIdentities: boolean;

                /**
                 * Encodes the specified NetworkPolicyPeer message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyPeer.verify|verify} messages.
                 * @param message NetworkPolicyPeer message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NetworkPolicyPeer.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NetworkPolicyPeer message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyPeer & switchyard.controlplane.v1.NetworkPolicyPeer.$Shape} NetworkPolicyPeer
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NetworkPolicyPeer & switchyard.controlplane.v1.NetworkPolicyPeer.$Shape;
            }

            namespace NetworkPolicyPeer {

                /** Properties of a NetworkPolicyPeer. */
                interface $Properties {

                    /** NetworkPolicyPeer addressGroups */
                    addressGroups?: (string[]|null);

                    /** NetworkPolicyPeer ipBlocks */
                    ipBlocks?: (switchyard.controlplane.v1.IPBlock.$Properties[]|null);

                    /** NetworkPolicyPeer fqdns */
                    fqdns?: (string[]|null);

                    /** NetworkPolicyPeer toServices */
                    toServices?: (switchyard.controlplane.v1.ServiceReference.$Properties[]|null);

                    /** NetworkPolicyPeer labelIdentities */
                    labelIdentities?: (number[]|null);

                    /** NetworkPolicyPeer hasFqdns */
                    hasFqdns?: (boolean|null);

                    /** NetworkPolicyPeer hasToServices */
                    hasToServices?: (boolean|null);

                    /** NetworkPolicyPeer hasLabelIdentities */
                    hasLabelIdentities?: (boolean|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NetworkPolicyPeer. */
                type $Shape = switchyard.controlplane.v1.NetworkPolicyPeer.$Properties;
            }

            /**
             * Properties of a NetworkPolicyRule.
             * @deprecated Use switchyard.controlplane.v1.NetworkPolicyRule.$Properties instead.
             */
            interface INetworkPolicyRule extends switchyard.controlplane.v1.NetworkPolicyRule.$Properties {
            }

            /** Represents a NetworkPolicyRule. */
            class NetworkPolicyRule {

                /**
                 * Constructs a new NetworkPolicyRule.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NetworkPolicyRule.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NetworkPolicyRule direction. */
                direction: switchyard.controlplane.v1.Direction;

                /** NetworkPolicyRule from. */
                from?: (switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null);

                /** NetworkPolicyRule to. */
                to?: (switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null);

                /** NetworkPolicyRule services. */
                services: switchyard.controlplane.v1.Service.$Properties[];

                /** NetworkPolicyRule action. */
                action: switchyard.controlplane.v1.RuleAction;

                /** NetworkPolicyRule priority. */
                priority: number;

                /** NetworkPolicyRule enableLogging. */
                enableLogging: boolean;

                /** NetworkPolicyRule logLabel. */
                logLabel?: (string|null);

                /** NetworkPolicyRule appliedToGroups. */
                appliedToGroups: string[];

                /** NetworkPolicyRule hasAppliedToGroups. */
                hasAppliedToGroups: boolean;

                /** NetworkPolicyRule name. */
                name?: (string|null);

                /**
                 * Encodes the specified NetworkPolicyRule message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyRule.verify|verify} messages.
                 * @param message NetworkPolicyRule message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NetworkPolicyRule.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NetworkPolicyRule message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyRule & switchyard.controlplane.v1.NetworkPolicyRule.$Shape} NetworkPolicyRule
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NetworkPolicyRule & switchyard.controlplane.v1.NetworkPolicyRule.$Shape;
            }

            namespace NetworkPolicyRule {

                /** Properties of a NetworkPolicyRule. */
                interface $Properties {

                    /** NetworkPolicyRule direction */
                    direction?: (switchyard.controlplane.v1.Direction|null);

                    /** NetworkPolicyRule from */
                    from?: (switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null);

                    /** NetworkPolicyRule to */
                    to?: (switchyard.controlplane.v1.NetworkPolicyPeer.$Properties|null);

                    /** NetworkPolicyRule services */
                    services?: (switchyard.controlplane.v1.Service.$Properties[]|null);

                    /** NetworkPolicyRule action */
                    action?: (switchyard.controlplane.v1.RuleAction|null);

                    /** NetworkPolicyRule priority */
                    priority?: (number|null);

                    /** NetworkPolicyRule enableLogging */
                    enableLogging?: (boolean|null);

                    /** NetworkPolicyRule logLabel */
                    logLabel?: (string|null);

                    /** NetworkPolicyRule appliedToGroups */
                    appliedToGroups?: (string[]|null);

                    /** NetworkPolicyRule hasAppliedToGroups */
                    hasAppliedToGroups?: (boolean|null);

                    /** NetworkPolicyRule name */
                    name?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NetworkPolicyRule. */
                type $Shape = {
                  direction?: switchyard.controlplane.v1.Direction|null;
                  from?: switchyard.controlplane.v1.NetworkPolicyPeer.$Shape|null;
                  to?: switchyard.controlplane.v1.NetworkPolicyPeer.$Shape|null;
                  services?: switchyard.controlplane.v1.Service.$Shape[]|null;
                  action?: switchyard.controlplane.v1.RuleAction|null;
                  priority?: number|null;
                  enableLogging?: boolean|null;
                  logLabel?: string|null;
                  appliedToGroups?: string[]|null;
                  hasAppliedToGroups?: boolean|null;
                  name?: string|null;
                  $unknowns?: Uint8Array[];
                };
            }

            /**
             * Properties of a NetworkPolicy.
             * @deprecated Use switchyard.controlplane.v1.NetworkPolicy.$Properties instead.
             */
            interface INetworkPolicy extends switchyard.controlplane.v1.NetworkPolicy.$Properties {
            }

            /** Represents a NetworkPolicy. */
            class NetworkPolicy {

                /**
                 * Constructs a new NetworkPolicy.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NetworkPolicy.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NetworkPolicy uid. */
                uid: string;

                /** NetworkPolicy name. */
                name: string;

                /** NetworkPolicy namespace. */
                namespace: string;

                /** NetworkPolicy sourceRef. */
                sourceRef?: (switchyard.controlplane.v1.NetworkPolicyReference.$Properties|null);

                /** NetworkPolicy rules. */
                rules: switchyard.controlplane.v1.NetworkPolicyRule.$Properties[];

                /** NetworkPolicy appliedToGroups. */
                appliedToGroups: string[];

                /** NetworkPolicy priority. */
                priority?: (number|null);

                /** NetworkPolicy tierPriority. */
                tierPriority?: (number|null);

                /** NetworkPolicy appliedToPerRule. */
                appliedToPerRule?: (boolean|null);

                /** NetworkPolicy generation. */
                generation: (number|Long);

                /** NetworkPolicy policyTypes. */
                policyTypes: switchyard.controlplane.v1.PolicyType[];

                /** NetworkPolicy hasPolicyTypes. */
                hasPolicyTypes: boolean;

                /**
                 * Encodes the specified NetworkPolicy message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicy.verify|verify} messages.
                 * @param message NetworkPolicy message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NetworkPolicy.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NetworkPolicy message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicy & switchyard.controlplane.v1.NetworkPolicy.$Shape} NetworkPolicy
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NetworkPolicy & switchyard.controlplane.v1.NetworkPolicy.$Shape;
            }

            namespace NetworkPolicy {

                /** Properties of a NetworkPolicy. */
                interface $Properties {

                    /** NetworkPolicy uid */
                    uid?: (string|null);

                    /** NetworkPolicy name */
                    name?: (string|null);

                    /** NetworkPolicy namespace */
                    namespace?: (string|null);

                    /** NetworkPolicy sourceRef */
                    sourceRef?: (switchyard.controlplane.v1.NetworkPolicyReference.$Properties|null);

                    /** NetworkPolicy rules */
                    rules?: (switchyard.controlplane.v1.NetworkPolicyRule.$Properties[]|null);

                    /** NetworkPolicy appliedToGroups */
                    appliedToGroups?: (string[]|null);

                    /** NetworkPolicy priority */
                    priority?: (number|null);

                    /** NetworkPolicy tierPriority */
                    tierPriority?: (number|null);

                    /** NetworkPolicy appliedToPerRule */
                    appliedToPerRule?: (boolean|null);

                    /** NetworkPolicy generation */
                    generation?: (number|Long|null);

                    /** NetworkPolicy policyTypes */
                    policyTypes?: (switchyard.controlplane.v1.PolicyType[]|null);

                    /** NetworkPolicy hasPolicyTypes */
                    hasPolicyTypes?: (boolean|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NetworkPolicy. */
                type $Shape = {
                  uid?: string|null;
                  name?: string|null;
                  namespace?: string|null;
                  sourceRef?: switchyard.controlplane.v1.NetworkPolicyReference.$Shape|null;
                  rules?: switchyard.controlplane.v1.NetworkPolicyRule.$Shape[]|null;
                  appliedToGroups?: string[]|null;
                  priority?: number|null;
                  tierPriority?: number|null;
                  appliedToPerRule?: boolean|null;
                  generation?: number|Long|null;
                  policyTypes?: switchyard.controlplane.v1.PolicyType[]|null;
                  hasPolicyTypes?: boolean|null;
                  $unknowns?: Uint8Array[];
                };
            }

            /**
             * Properties of a NamedPort.
             * @deprecated Use switchyard.controlplane.v1.NamedPort.$Properties instead.
             */
            interface INamedPort extends switchyard.controlplane.v1.NamedPort.$Properties {
            }

            /** Represents a NamedPort. */
            class NamedPort {

                /**
                 * Constructs a new NamedPort.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NamedPort.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NamedPort name. */
                name: string;

                /** NamedPort port. */
                port: number;

                /** NamedPort protocol. */
                protocol: switchyard.controlplane.v1.Protocol;

                /**
                 * Encodes the specified NamedPort message. Does not implicitly {@link switchyard.controlplane.v1.NamedPort.verify|verify} messages.
                 * @param message NamedPort message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NamedPort.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NamedPort message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NamedPort & switchyard.controlplane.v1.NamedPort.$Shape} NamedPort
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NamedPort & switchyard.controlplane.v1.NamedPort.$Shape;
            }

            namespace NamedPort {

                /** Properties of a NamedPort. */
                interface $Properties {

                    /** NamedPort name */
                    name?: (string|null);

                    /** NamedPort port */
                    port?: (number|null);

                    /** NamedPort protocol */
                    protocol?: (switchyard.controlplane.v1.Protocol|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NamedPort. */
                type $Shape = switchyard.controlplane.v1.NamedPort.$Properties;
            }

            /**
             * Properties of a PodReference.
             * @deprecated Use switchyard.controlplane.v1.PodReference.$Properties instead.
             */
            interface IPodReference extends switchyard.controlplane.v1.PodReference.$Properties {
            }

            /** Represents a PodReference. */
            class PodReference {

                /**
                 * Constructs a new PodReference.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.PodReference.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** PodReference name. */
                name: string;

                /** PodReference namespace. */
                namespace: string;

                /**
                 * Encodes the specified PodReference message. Does not implicitly {@link switchyard.controlplane.v1.PodReference.verify|verify} messages.
                 * @param message PodReference message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.PodReference.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a PodReference message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.PodReference & switchyard.controlplane.v1.PodReference.$Shape} PodReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.PodReference & switchyard.controlplane.v1.PodReference.$Shape;
            }

            namespace PodReference {

                /** Properties of a PodReference. */
                interface $Properties {

                    /** PodReference name */
                    name?: (string|null);

                    /** PodReference namespace */
                    namespace?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a PodReference. */
                type $Shape = switchyard.controlplane.v1.PodReference.$Properties;
            }

            /**
             * Properties of an ExternalEntityReference.
             * @deprecated Use switchyard.controlplane.v1.ExternalEntityReference.$Properties instead.
             */
            interface IExternalEntityReference extends switchyard.controlplane.v1.ExternalEntityReference.$Properties {
            }

            /** Represents an ExternalEntityReference. */
            class ExternalEntityReference {

                /**
                 * Constructs a new ExternalEntityReference.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.ExternalEntityReference.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** ExternalEntityReference name. */
                name: string;

                /** ExternalEntityReference namespace. */
                namespace: string;

                /**
                 * Encodes the specified ExternalEntityReference message. Does not implicitly {@link switchyard.controlplane.v1.ExternalEntityReference.verify|verify} messages.
                 * @param message ExternalEntityReference message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.ExternalEntityReference.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an ExternalEntityReference message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.ExternalEntityReference & switchyard.controlplane.v1.ExternalEntityReference.$Shape} ExternalEntityReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.ExternalEntityReference & switchyard.controlplane.v1.ExternalEntityReference.$Shape;
            }

            namespace ExternalEntityReference {

                /** Properties of an ExternalEntityReference. */
                interface $Properties {

                    /** ExternalEntityReference name */
                    name?: (string|null);

                    /** ExternalEntityReference namespace */
                    namespace?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an ExternalEntityReference. */
                type $Shape = switchyard.controlplane.v1.ExternalEntityReference.$Properties;
            }

            /**
             * Properties of a NodeReference.
             * @deprecated Use switchyard.controlplane.v1.NodeReference.$Properties instead.
             */
            interface INodeReference extends switchyard.controlplane.v1.NodeReference.$Properties {
            }

            /** Represents a NodeReference. */
            class NodeReference {

                /**
                 * Constructs a new NodeReference.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NodeReference.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NodeReference name. */
                name: string;

                /**
                 * Encodes the specified NodeReference message. Does not implicitly {@link switchyard.controlplane.v1.NodeReference.verify|verify} messages.
                 * @param message NodeReference message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NodeReference.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NodeReference message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NodeReference & switchyard.controlplane.v1.NodeReference.$Shape} NodeReference
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NodeReference & switchyard.controlplane.v1.NodeReference.$Shape;
            }

            namespace NodeReference {

                /** Properties of a NodeReference. */
                interface $Properties {

                    /** NodeReference name */
                    name?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NodeReference. */
                type $Shape = switchyard.controlplane.v1.NodeReference.$Properties;
            }

            /**
             * Properties of a GroupMember.
             * @deprecated Use switchyard.controlplane.v1.GroupMember.$Properties instead.
             */
            interface IGroupMember extends switchyard.controlplane.v1.GroupMember.$Properties {
            }

            /** Represents a GroupMember. */
            class GroupMember {

                /**
                 * Constructs a new GroupMember.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.GroupMember.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** GroupMember pod. */
                pod?: (switchyard.controlplane.v1.PodReference.$Properties|null);

                /** GroupMember externalEntity. */
                externalEntity?: (switchyard.controlplane.v1.ExternalEntityReference.$Properties|null);

                /** GroupMember node. */
                node?: (switchyard.controlplane.v1.NodeReference.$Properties|null);

                /** GroupMember ips. */
                ips: Uint8Array[];

                /** GroupMember ports. */
                ports: switchyard.controlplane.v1.NamedPort.$Properties[];

                /** GroupMember hasPorts. */
                hasPorts: boolean;

                /**
                 * Encodes the specified GroupMember message. Does not implicitly {@link switchyard.controlplane.v1.GroupMember.verify|verify} messages.
                 * @param message GroupMember message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.GroupMember.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a GroupMember message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.GroupMember & switchyard.controlplane.v1.GroupMember.$Shape} GroupMember
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.GroupMember & switchyard.controlplane.v1.GroupMember.$Shape;
            }

            namespace GroupMember {

                /** Properties of a GroupMember. */
                interface $Properties {

                    /** GroupMember pod */
                    pod?: (switchyard.controlplane.v1.PodReference.$Properties|null);

                    /** GroupMember externalEntity */
                    externalEntity?: (switchyard.controlplane.v1.ExternalEntityReference.$Properties|null);

                    /** GroupMember node */
                    node?: (switchyard.controlplane.v1.NodeReference.$Properties|null);

                    /** GroupMember ips */
                    ips?: (Uint8Array[]|null);

                    /** GroupMember ports */
                    ports?: (switchyard.controlplane.v1.NamedPort.$Properties[]|null);

                    /** GroupMember hasPorts */
                    hasPorts?: (boolean|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a GroupMember. */
                type $Shape = switchyard.controlplane.v1.GroupMember.$Properties;
            }

            /**
             * Properties of an AddressGroup.
             * @deprecated Use switchyard.controlplane.v1.AddressGroup.$Properties instead.
             */
            interface IAddressGroup extends switchyard.controlplane.v1.AddressGroup.$Properties {
            }

            /** Represents an AddressGroup. */
            class AddressGroup {

                /**
                 * Constructs a new AddressGroup.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.AddressGroup.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** AddressGroup name. */
                name: string;

                /** AddressGroup groupMembers. */
                groupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /**
                 * Encodes the specified AddressGroup message. Does not implicitly {@link switchyard.controlplane.v1.AddressGroup.verify|verify} messages.
                 * @param message AddressGroup message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.AddressGroup.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an AddressGroup message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AddressGroup & switchyard.controlplane.v1.AddressGroup.$Shape} AddressGroup
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.AddressGroup & switchyard.controlplane.v1.AddressGroup.$Shape;
            }

            namespace AddressGroup {

                /** Properties of an AddressGroup. */
                interface $Properties {

                    /** AddressGroup name */
                    name?: (string|null);

                    /** AddressGroup groupMembers */
                    groupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an AddressGroup. */
                type $Shape = switchyard.controlplane.v1.AddressGroup.$Properties;
            }

            /**
             * Properties of an AppliedToGroup.
             * @deprecated Use switchyard.controlplane.v1.AppliedToGroup.$Properties instead.
             */
            interface IAppliedToGroup extends switchyard.controlplane.v1.AppliedToGroup.$Properties {
            }

            /** Represents an AppliedToGroup. */
            class AppliedToGroup {

                /**
                 * Constructs a new AppliedToGroup.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.AppliedToGroup.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** AppliedToGroup name. */
                name: string;

                /** AppliedToGroup groupMembers. */
                groupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /**
                 * Encodes the specified AppliedToGroup message. Does not implicitly {@link switchyard.controlplane.v1.AppliedToGroup.verify|verify} messages.
                 * @param message AppliedToGroup message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.AppliedToGroup.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an AppliedToGroup message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AppliedToGroup & switchyard.controlplane.v1.AppliedToGroup.$Shape} AppliedToGroup
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.AppliedToGroup & switchyard.controlplane.v1.AppliedToGroup.$Shape;
            }

            namespace AppliedToGroup {

                /** Properties of an AppliedToGroup. */
                interface $Properties {

                    /** AppliedToGroup name */
                    name?: (string|null);

                    /** AppliedToGroup groupMembers */
                    groupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an AppliedToGroup. */
                type $Shape = switchyard.controlplane.v1.AppliedToGroup.$Properties;
            }

            /**
             * Properties of an AddressGroupPatch.
             * @deprecated Use switchyard.controlplane.v1.AddressGroupPatch.$Properties instead.
             */
            interface IAddressGroupPatch extends switchyard.controlplane.v1.AddressGroupPatch.$Properties {
            }

            /** Represents an AddressGroupPatch. */
            class AddressGroupPatch {

                /**
                 * Constructs a new AddressGroupPatch.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.AddressGroupPatch.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** AddressGroupPatch name. */
                name: string;

                /** AddressGroupPatch addedGroupMembers. */
                addedGroupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /** AddressGroupPatch removedGroupMembers. */
                removedGroupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /**
                 * Encodes the specified AddressGroupPatch message. Does not implicitly {@link switchyard.controlplane.v1.AddressGroupPatch.verify|verify} messages.
                 * @param message AddressGroupPatch message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.AddressGroupPatch.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an AddressGroupPatch message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AddressGroupPatch & switchyard.controlplane.v1.AddressGroupPatch.$Shape} AddressGroupPatch
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.AddressGroupPatch & switchyard.controlplane.v1.AddressGroupPatch.$Shape;
            }

            namespace AddressGroupPatch {

                /** Properties of an AddressGroupPatch. */
                interface $Properties {

                    /** AddressGroupPatch name */
                    name?: (string|null);

                    /** AddressGroupPatch addedGroupMembers */
                    addedGroupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** AddressGroupPatch removedGroupMembers */
                    removedGroupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an AddressGroupPatch. */
                type $Shape = switchyard.controlplane.v1.AddressGroupPatch.$Properties;
            }

            /**
             * Properties of an AppliedToGroupPatch.
             * @deprecated Use switchyard.controlplane.v1.AppliedToGroupPatch.$Properties instead.
             */
            interface IAppliedToGroupPatch extends switchyard.controlplane.v1.AppliedToGroupPatch.$Properties {
            }

            /** Represents an AppliedToGroupPatch. */
            class AppliedToGroupPatch {

                /**
                 * Constructs a new AppliedToGroupPatch.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.AppliedToGroupPatch.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** AppliedToGroupPatch name. */
                name: string;

                /** AppliedToGroupPatch addedGroupMembers. */
                addedGroupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /** AppliedToGroupPatch removedGroupMembers. */
                removedGroupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /**
                 * Encodes the specified AppliedToGroupPatch message. Does not implicitly {@link switchyard.controlplane.v1.AppliedToGroupPatch.verify|verify} messages.
                 * @param message AppliedToGroupPatch message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.AppliedToGroupPatch.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an AppliedToGroupPatch message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AppliedToGroupPatch & switchyard.controlplane.v1.AppliedToGroupPatch.$Shape} AppliedToGroupPatch
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.AppliedToGroupPatch & switchyard.controlplane.v1.AppliedToGroupPatch.$Shape;
            }

            namespace AppliedToGroupPatch {

                /** Properties of an AppliedToGroupPatch. */
                interface $Properties {

                    /** AppliedToGroupPatch name */
                    name?: (string|null);

                    /** AppliedToGroupPatch addedGroupMembers */
                    addedGroupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** AppliedToGroupPatch removedGroupMembers */
                    removedGroupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an AppliedToGroupPatch. */
                type $Shape = switchyard.controlplane.v1.AppliedToGroupPatch.$Properties;
            }

            /**
             * Properties of an EgressGroup.
             * @deprecated Use switchyard.controlplane.v1.EgressGroup.$Properties instead.
             */
            interface IEgressGroup extends switchyard.controlplane.v1.EgressGroup.$Properties {
            }

            /** Represents an EgressGroup. */
            class EgressGroup {

                /**
                 * Constructs a new EgressGroup.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.EgressGroup.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** EgressGroup name. */
                name: string;

                /** EgressGroup groupMembers. */
                groupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /**
                 * Encodes the specified EgressGroup message. Does not implicitly {@link switchyard.controlplane.v1.EgressGroup.verify|verify} messages.
                 * @param message EgressGroup message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.EgressGroup.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an EgressGroup message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.EgressGroup & switchyard.controlplane.v1.EgressGroup.$Shape} EgressGroup
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.EgressGroup & switchyard.controlplane.v1.EgressGroup.$Shape;
            }

            namespace EgressGroup {

                /** Properties of an EgressGroup. */
                interface $Properties {

                    /** EgressGroup name */
                    name?: (string|null);

                    /** EgressGroup groupMembers */
                    groupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an EgressGroup. */
                type $Shape = switchyard.controlplane.v1.EgressGroup.$Properties;
            }

            /**
             * Properties of an EgressGroupPatch.
             * @deprecated Use switchyard.controlplane.v1.EgressGroupPatch.$Properties instead.
             */
            interface IEgressGroupPatch extends switchyard.controlplane.v1.EgressGroupPatch.$Properties {
            }

            /** Represents an EgressGroupPatch. */
            class EgressGroupPatch {

                /**
                 * Constructs a new EgressGroupPatch.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.EgressGroupPatch.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** EgressGroupPatch name. */
                name: string;

                /** EgressGroupPatch addedGroupMembers. */
                addedGroupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /** EgressGroupPatch removedGroupMembers. */
                removedGroupMembers: switchyard.controlplane.v1.GroupMember.$Properties[];

                /**
                 * Encodes the specified EgressGroupPatch message. Does not implicitly {@link switchyard.controlplane.v1.EgressGroupPatch.verify|verify} messages.
                 * @param message EgressGroupPatch message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.EgressGroupPatch.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an EgressGroupPatch message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.EgressGroupPatch & switchyard.controlplane.v1.EgressGroupPatch.$Shape} EgressGroupPatch
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.EgressGroupPatch & switchyard.controlplane.v1.EgressGroupPatch.$Shape;
            }

            namespace EgressGroupPatch {

                /** Properties of an EgressGroupPatch. */
                interface $Properties {

                    /** EgressGroupPatch name */
                    name?: (string|null);

                    /** EgressGroupPatch addedGroupMembers */
                    addedGroupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** EgressGroupPatch removedGroupMembers */
                    removedGroupMembers?: (switchyard.controlplane.v1.GroupMember.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an EgressGroupPatch. */
                type $Shape = switchyard.controlplane.v1.EgressGroupPatch.$Properties;
            }

            /**
             * Properties of a NetworkPolicyNodeStatus.
             * @deprecated Use switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties instead.
             */
            interface INetworkPolicyNodeStatus extends switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties {
            }

            /** Represents a NetworkPolicyNodeStatus. */
            class NetworkPolicyNodeStatus {

                /**
                 * Constructs a new NetworkPolicyNodeStatus.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NetworkPolicyNodeStatus nodeName. */
                nodeName: string;

                /** NetworkPolicyNodeStatus generation. */
                generation: (number|Long);

                /** NetworkPolicyNodeStatus realizationFailure. */
                realizationFailure?: (boolean|null);

                /** NetworkPolicyNodeStatus message. */
                message?: (string|null);

                /**
                 * Encodes the specified NetworkPolicyNodeStatus message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyNodeStatus.verify|verify} messages.
                 * @param message NetworkPolicyNodeStatus message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NetworkPolicyNodeStatus message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyNodeStatus & switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Shape} NetworkPolicyNodeStatus
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NetworkPolicyNodeStatus & switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Shape;
            }

            namespace NetworkPolicyNodeStatus {

                /** Properties of a NetworkPolicyNodeStatus. */
                interface $Properties {

                    /** NetworkPolicyNodeStatus nodeName */
                    nodeName?: (string|null);

                    /** NetworkPolicyNodeStatus generation */
                    generation?: (number|Long|null);

                    /** NetworkPolicyNodeStatus realizationFailure */
                    realizationFailure?: (boolean|null);

                    /** NetworkPolicyNodeStatus message */
                    message?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NetworkPolicyNodeStatus. */
                type $Shape = switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties;
            }

            /**
             * Properties of a NetworkPolicyStatus.
             * @deprecated Use switchyard.controlplane.v1.NetworkPolicyStatus.$Properties instead.
             */
            interface INetworkPolicyStatus extends switchyard.controlplane.v1.NetworkPolicyStatus.$Properties {
            }

            /** Represents a NetworkPolicyStatus. */
            class NetworkPolicyStatus {

                /**
                 * Constructs a new NetworkPolicyStatus.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.NetworkPolicyStatus.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** NetworkPolicyStatus name. */
                name: string;

                /** NetworkPolicyStatus nodes. */
                nodes: switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties[];

                /**
                 * Encodes the specified NetworkPolicyStatus message. Does not implicitly {@link switchyard.controlplane.v1.NetworkPolicyStatus.verify|verify} messages.
                 * @param message NetworkPolicyStatus message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.NetworkPolicyStatus.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a NetworkPolicyStatus message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.NetworkPolicyStatus & switchyard.controlplane.v1.NetworkPolicyStatus.$Shape} NetworkPolicyStatus
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.NetworkPolicyStatus & switchyard.controlplane.v1.NetworkPolicyStatus.$Shape;
            }

            namespace NetworkPolicyStatus {

                /** Properties of a NetworkPolicyStatus. */
                interface $Properties {

                    /** NetworkPolicyStatus name */
                    name?: (string|null);

                    /** NetworkPolicyStatus nodes */
                    nodes?: (switchyard.controlplane.v1.NetworkPolicyNodeStatus.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a NetworkPolicyStatus. */
                type $Shape = switchyard.controlplane.v1.NetworkPolicyStatus.$Properties;
            }

            /**
             * Properties of an AgentCondition.
             * @deprecated Use switchyard.controlplane.v1.AgentCondition.$Properties instead.
             */
            interface IAgentCondition extends switchyard.controlplane.v1.AgentCondition.$Properties {
            }

            /** Represents an AgentCondition. */
            class AgentCondition {

                /**
                 * Constructs a new AgentCondition.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.AgentCondition.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** AgentCondition type. */
                type: string;

                /** AgentCondition status. */
                status: switchyard.controlplane.v1.ConditionStatus;

                /** AgentCondition lastHeartbeatTime. */
                lastHeartbeatTime?: (string|null);

                /** AgentCondition reason. */
                reason?: (string|null);

                /** AgentCondition message. */
                message?: (string|null);

                /**
                 * Encodes the specified AgentCondition message. Does not implicitly {@link switchyard.controlplane.v1.AgentCondition.verify|verify} messages.
                 * @param message AgentCondition message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.AgentCondition.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an AgentCondition message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AgentCondition & switchyard.controlplane.v1.AgentCondition.$Shape} AgentCondition
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.AgentCondition & switchyard.controlplane.v1.AgentCondition.$Shape;
            }

            namespace AgentCondition {

                /** Properties of an AgentCondition. */
                interface $Properties {

                    /** AgentCondition type */
                    type?: (string|null);

                    /** AgentCondition status */
                    status?: (switchyard.controlplane.v1.ConditionStatus|null);

                    /** AgentCondition lastHeartbeatTime */
                    lastHeartbeatTime?: (string|null);

                    /** AgentCondition reason */
                    reason?: (string|null);

                    /** AgentCondition message */
                    message?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an AgentCondition. */
                type $Shape = switchyard.controlplane.v1.AgentCondition.$Properties;
            }

            /**
             * Properties of an AgentInfo.
             * @deprecated Use switchyard.controlplane.v1.AgentInfo.$Properties instead.
             */
            interface IAgentInfo extends switchyard.controlplane.v1.AgentInfo.$Properties {
            }

            /** Represents an AgentInfo. */
            class AgentInfo {

                /**
                 * Constructs a new AgentInfo.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.AgentInfo.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** AgentInfo nodeName. */
                nodeName: string;

                /** AgentInfo version. */
                version: string;

                /** AgentInfo podRef. */
                podRef?: (switchyard.controlplane.v1.PodReference.$Properties|null);

                /** AgentInfo nodeSubnets. */
                nodeSubnets: string[];

                /** AgentInfo networkPolicyNum. */
                networkPolicyNum: number;

                /** AgentInfo addressGroupNum. */
                addressGroupNum: number;

                /** AgentInfo appliedToGroupNum. */
                appliedToGroupNum: number;

                /** AgentInfo localPodNum. */
                localPodNum: number;

                /** AgentInfo ovsVersion. */
                ovsVersion?: (string|null);

                /** AgentInfo bridgeName. */
                bridgeName?: (string|null);

                /** AgentInfo flowTable. */
                flowTable: { [k: string]: number };

                /** AgentInfo hasFlowTable. */
                hasFlowTable: boolean;

                /** AgentInfo conditions. */
                conditions: switchyard.controlplane.v1.AgentCondition.$Properties[];

                /**
                 * Encodes the specified AgentInfo message. Does not implicitly {@link switchyard.controlplane.v1.AgentInfo.verify|verify} messages.
                 * @param message AgentInfo message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.AgentInfo.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes an AgentInfo message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.AgentInfo & switchyard.controlplane.v1.AgentInfo.$Shape} AgentInfo
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.AgentInfo & switchyard.controlplane.v1.AgentInfo.$Shape;
            }

            namespace AgentInfo {

                /** Properties of an AgentInfo. */
                interface $Properties {

                    /** AgentInfo nodeName */
                    nodeName?: (string|null);

                    /** AgentInfo version */
                    version?: (string|null);

                    /** AgentInfo podRef */
                    podRef?: (switchyard.controlplane.v1.PodReference.$Properties|null);

                    /** AgentInfo nodeSubnets */
                    nodeSubnets?: (string[]|null);

                    /** AgentInfo networkPolicyNum */
                    networkPolicyNum?: (number|null);

                    /** AgentInfo addressGroupNum */
                    addressGroupNum?: (number|null);

                    /** AgentInfo appliedToGroupNum */
                    appliedToGroupNum?: (number|null);

                    /** AgentInfo localPodNum */
                    localPodNum?: (number|null);

                    /** AgentInfo ovsVersion */
                    ovsVersion?: (string|null);

                    /** AgentInfo bridgeName */
                    bridgeName?: (string|null);

                    /** AgentInfo flowTable */
                    flowTable?: ({ [k: string]: number }|null);

                    /** AgentInfo hasFlowTable */
                    hasFlowTable?: (boolean|null);

                    /** AgentInfo conditions */
                    conditions?: (switchyard.controlplane.v1.AgentCondition.$Properties[]|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of an AgentInfo. */
                type $Shape = switchyard.controlplane.v1.AgentInfo.$Properties;
            }

            /**
             * Properties of a Bookmark.
             * @deprecated Use switchyard.controlplane.v1.Bookmark.$Properties instead.
             */
            interface IBookmark extends switchyard.controlplane.v1.Bookmark.$Properties {
            }

            /** Represents a Bookmark. */
            class Bookmark {

                /**
                 * Constructs a new Bookmark.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.Bookmark.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** Bookmark resourceVersion. */
                resourceVersion: string;

                /**
                 * Encodes the specified Bookmark message. Does not implicitly {@link switchyard.controlplane.v1.Bookmark.verify|verify} messages.
                 * @param message Bookmark message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.Bookmark.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a Bookmark message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.Bookmark & switchyard.controlplane.v1.Bookmark.$Shape} Bookmark
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.Bookmark & switchyard.controlplane.v1.Bookmark.$Shape;
            }

            namespace Bookmark {

                /** Properties of a Bookmark. */
                interface $Properties {

                    /** Bookmark resourceVersion */
                    resourceVersion?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a Bookmark. */
                type $Shape = switchyard.controlplane.v1.Bookmark.$Properties;
            }

            /**
             * Properties of a Status.
             * @deprecated Use switchyard.controlplane.v1.Status.$Properties instead.
             */
            interface IStatus extends switchyard.controlplane.v1.Status.$Properties {
            }

            /** Represents a Status. */
            class Status {

                /**
                 * Constructs a new Status.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.Status.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** Status code. */
                code: number;

                /** Status reason. */
                reason: string;

                /** Status message. */
                message: string;

                /**
                 * Encodes the specified Status message. Does not implicitly {@link switchyard.controlplane.v1.Status.verify|verify} messages.
                 * @param message Status message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.Status.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a Status message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.Status & switchyard.controlplane.v1.Status.$Shape} Status
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.Status & switchyard.controlplane.v1.Status.$Shape;
            }

            namespace Status {

                /** Properties of a Status. */
                interface $Properties {

                    /** Status code */
                    code?: (number|null);

                    /** Status reason */
                    reason?: (string|null);

                    /** Status message */
                    message?: (string|null);

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Shape of a Status. */
                type $Shape = switchyard.controlplane.v1.Status.$Properties;
            }

            /**
             * Properties of a WatchEvent.
             * @deprecated Use switchyard.controlplane.v1.WatchEvent.$Properties instead.
             */
            interface IWatchEvent extends switchyard.controlplane.v1.WatchEvent.$Properties {
            }

            /** Represents a WatchEvent. */
            class WatchEvent {

                /**
                 * Constructs a new WatchEvent.
                 * @param [properties] Properties to set
                 */
                constructor(properties?: switchyard.controlplane.v1.WatchEvent.$Properties);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];

                /** WatchEvent type. */
                type: switchyard.controlplane.v1.EventType;

                /** WatchEvent resourceVersion. */
                resourceVersion?: (string|null);

                /** WatchEvent networkPolicy. */
                networkPolicy?: (switchyard.controlplane.v1.NetworkPolicy.$Properties|null);

                /** WatchEvent addressGroup. */
                addressGroup?: (switchyard.controlplane.v1.AddressGroup.$Properties|null);

                /** WatchEvent addressGroupPatch. */
                addressGroupPatch?: (switchyard.controlplane.v1.AddressGroupPatch.$Properties|null);

                /** WatchEvent appliedToGroup. */
                appliedToGroup?: (switchyard.controlplane.v1.AppliedToGroup.$Properties|null);

                /** WatchEvent appliedToGroupPatch. */
                appliedToGroupPatch?: (switchyard.controlplane.v1.AppliedToGroupPatch.$Properties|null);

                /** WatchEvent networkPolicyStatus. */
                networkPolicyStatus?: (switchyard.controlplane.v1.NetworkPolicyStatus.$Properties|null);

                /** WatchEvent bookmark. */
                bookmark?: (switchyard.controlplane.v1.Bookmark.$Properties|null);

                /** WatchEvent status. */
                status?: (switchyard.controlplane.v1.Status.$Properties|null);

                /** WatchEvent egressGroup. */
                egressGroup?: (switchyard.controlplane.v1.EgressGroup.$Properties|null);

                /** WatchEvent egressGroupPatch. */
                egressGroupPatch?: (switchyard.controlplane.v1.EgressGroupPatch.$Properties|null);

                /** WatchEvent object. */
                object?: ("networkPolicy"|"addressGroup"|"addressGroupPatch"|"appliedToGroup"|"appliedToGroupPatch"|"networkPolicyStatus"|"bookmark"|"status"|"egressGroup"|"egressGroupPatch");

                /**
                 * Encodes the specified WatchEvent message. Does not implicitly {@link switchyard.controlplane.v1.WatchEvent.verify|verify} messages.
                 * @param message WatchEvent message or plain object to encode
                 * @param [writer] Writer to encode to
                 * @returns Writer
                 */
                static encode(message: switchyard.controlplane.v1.WatchEvent.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

                /**
                 * Decodes a WatchEvent message from the specified reader or buffer.
                 * @param reader Reader or buffer to decode from
                 * @param [length] Message length if known beforehand
                 * @returns {switchyard.controlplane.v1.WatchEvent & switchyard.controlplane.v1.WatchEvent.$Shape} WatchEvent
                 * @throws {Error} If the payload is not a reader or valid buffer
                 * @throws {$protobuf.util.ProtocolError} If required fields are missing
                 */
                static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): switchyard.controlplane.v1.WatchEvent & switchyard.controlplane.v1.WatchEvent.$Shape;
            }

            namespace WatchEvent {

                /** Properties of a WatchEvent. */
                interface $Properties {

                    /** WatchEvent type */
                    type?: (switchyard.controlplane.v1.EventType|null);

                    /** WatchEvent resourceVersion */
                    resourceVersion?: (string|null);

                    /** WatchEvent networkPolicy */
                    networkPolicy?: (switchyard.controlplane.v1.NetworkPolicy.$Properties|null);

                    /** WatchEvent addressGroup */
                    addressGroup?: (switchyard.controlplane.v1.AddressGroup.$Properties|null);

                    /** WatchEvent addressGroupPatch */
                    addressGroupPatch?: (switchyard.controlplane.v1.AddressGroupPatch.$Properties|null);

                    /** WatchEvent appliedToGroup */
                    appliedToGroup?: (switchyard.controlplane.v1.AppliedToGroup.$Properties|null);

                    /** WatchEvent appliedToGroupPatch */
                    appliedToGroupPatch?: (switchyard.controlplane.v1.AppliedToGroupPatch.$Properties|null);

                    /** WatchEvent networkPolicyStatus */
                    networkPolicyStatus?: (switchyard.controlplane.v1.NetworkPolicyStatus.$Properties|null);

                    /** WatchEvent bookmark */
                    bookmark?: (switchyard.controlplane.v1.Bookmark.$Properties|null);

                    /** WatchEvent status */
                    status?: (switchyard.controlplane.v1.Status.$Properties|null);

                    /** WatchEvent egressGroup */
                    egressGroup?: (switchyard.controlplane.v1.EgressGroup.$Properties|null);

                    /** WatchEvent egressGroupPatch */
                    egressGroupPatch?: (switchyard.controlplane.v1.EgressGroupPatch.$Properties|null);

                    /** WatchEvent object */
                    object?: ("networkPolicy"|"addressGroup"|"addressGroupPatch"|"appliedToGroup"|"appliedToGroupPatch"|"networkPolicyStatus"|"bookmark"|"status"|"egressGroup"|"egressGroupPatch");

                    /** Unknown fields preserved while decoding when enabled */
                    $unknowns?: Uint8Array[];
                }

                /** Narrowed shape of a WatchEvent. */
                type $Shape = {
                  type?: switchyard.controlplane.v1.EventType|null;
                  resourceVersion?: string|null;
                  networkPolicy?: switchyard.controlplane.v1.NetworkPolicy.$Shape|null;
                  addressGroup?: switchyard.controlplane.v1.AddressGroup.$Shape|null;
                  addressGroupPatch?: switchyard.controlplane.v1.AddressGroupPatch.$Shape|null;
                  appliedToGroup?: switchyard.controlplane.v1.AppliedToGroup.$Shape|null;
                  appliedToGroupPatch?: switchyard.controlplane.v1.AppliedToGroupPatch.$Shape|null;
                  networkPolicyStatus?: switchyard.controlplane.v1.NetworkPolicyStatus.$Shape|null;
                  bookmark?: switchyard.controlplane.v1.Bookmark.$Shape|null;
                  status?: switchyard.controlplane.v1.Status.$Shape|null;
                  egressGroup?: switchyard.controlplane.v1.EgressGroup.$Shape|null;
                  egressGroupPatch?: switchyard.controlplane.v1.EgressGroupPatch.$Shape|null;
                  $unknowns?: Uint8Array[];
                } & (
                  ({ object?: undefined; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "networkPolicy"; networkPolicy: switchyard.controlplane.v1.NetworkPolicy.$Shape; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "addressGroup"; networkPolicy?: null; addressGroup: switchyard.controlplane.v1.AddressGroup.$Shape; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "addressGroupPatch"; networkPolicy?: null; addressGroup?: null; addressGroupPatch: switchyard.controlplane.v1.AddressGroupPatch.$Shape; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "appliedToGroup"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup: switchyard.controlplane.v1.AppliedToGroup.$Shape; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "appliedToGroupPatch"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch: switchyard.controlplane.v1.AppliedToGroupPatch.$Shape; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "networkPolicyStatus"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus: switchyard.controlplane.v1.NetworkPolicyStatus.$Shape; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "bookmark"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark: switchyard.controlplane.v1.Bookmark.$Shape; status?: null; egressGroup?: null; egressGroupPatch?: null }|{ object?: "status"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status: switchyard.controlplane.v1.Status.$Shape; egressGroup?: null; egressGroupPatch?: null }|{ object?: "egressGroup"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup: switchyard.controlplane.v1.EgressGroup.$Shape; egressGroupPatch?: null }|{ object?: "egressGroupPatch"; networkPolicy?: null; addressGroup?: null; addressGroupPatch?: null; appliedToGroup?: null; appliedToGroupPatch?: null; networkPolicyStatus?: null; bookmark?: null; status?: null; egressGroup?: null; egressGroupPatch: switchyard.controlplane.v1.EgressGroupPatch.$Shape })
                );
            }
        }
    }
}
