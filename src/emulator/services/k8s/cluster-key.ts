/** The key of a cluster in the state's `k8sClusters` (clusters are addressed by name within a project and region). */
export function clusterKey(projectId: number, regionId: number, name: string): string {
  return `${projectId}/${regionId}/${name}`;
}
