/**
 * The Karmada estate of this stack, described entirely by its `karmada:*` settings in
 * Pulumi.<stack>.yaml: etcd, the control plane, member clusters and addons (see pulumi-karmada's
 * docs/adopting.md).
 */
import { buildEstate, estateOutputs, readStackConfig } from "pulumi-karmada/stack";

const estate = buildEstate(readStackConfig());

// Resources of your own go here, e.g. objects inside Karmada through estate.controlPlane.karmadaProvider.

export = estateOutputs(estate);
