import { App, Chart } from "cdk8s";
import type { KubeObject } from "../../kube/object";

/**
 * Builds one cdk8s chart and returns its objects as plain JSON. Every object in our charts carries an
 * explicit `metadata.name`, so cdk8s never generates (hashed) names and the output is stable.
 */
export function synthChart(id: string, build: (chart: Chart) => void): KubeObject[] {
  const chart = new Chart(new App(), id);
  build(chart);
  return chart.toJson() as KubeObject[];
}
