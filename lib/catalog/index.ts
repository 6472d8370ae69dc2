/**
 * The version catalog: the Karmada releases this package supports (with the Kubernetes and etcd
 * versions each pairs with), the components they are made of, and where their images come from.
 * `karmadaVersion` picks an entry; `images` rewrites the registries for offline installs.
 * @module
 */
export * from "./components";
export * from "./images";
export * from "./namespaces";
export * from "./releases";
