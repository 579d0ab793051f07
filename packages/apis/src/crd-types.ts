/** The shape of the CustomResourceDefinitions this package ships (apiextensions.k8s.io/v1). */

/** JSON-schema node of a CRD (structural OpenAPI v3 subset plus x-kubernetes-* extensions). */
export type JSONSchemaProps = Record<string, unknown>;

/** A printer column of a served version. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** One served version of a CRD. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition, as shipped. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    group: string;
    names: { plural: string; singular: string; kind: string; listKind: string; shortNames?: string[]; categories?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: CustomResourceDefinitionVersion[];
  };
}
