/** Resolved settings of etcd on hosts: every script is a pure function of these (args: ./args.ts). */
import { ResolvedArtifact } from "../../hosts/artifact";
import { ServiceManager } from "../../hosts/service";
import { ResolvedHost } from "../../hosts/spec";

/** Backup settings after defaults. */
export interface EtcdHostsBackupSettings {
  readonly enabled: boolean;
  readonly host: string;
  readonly dir: string;
  readonly retain: number;
  readonly intervalSeconds: number;
  readonly uploadCommand?: string;
}

/** Paths on every member host, before rooting. */
interface EtcdHostPaths {
  readonly dataDir: string;
  readonly configDir: string;
  readonly pkiDir: string;
  readonly binDir: string;
  readonly libDir: string;
  readonly cacheDir: string;
  readonly logDir: string;
  readonly stateDir: string;
}

/** Resolved etcd-on-hosts settings: every script is a pure function of these. */
export interface EtcdHostsSettings {
  /** Pulumi name of the cluster; prefixes command names. */
  readonly name: string;
  readonly members: readonly ResolvedHost[];
  readonly version: string;
  readonly artifact: ResolvedArtifact;
  readonly serviceManager: ServiceManager;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly paths: EtcdHostPaths;
  readonly deleteData: boolean;
  readonly restoreFrom?: ResolvedArtifact;
  /** `restoreFrom.replaceData`: members holding another cluster's data are restored too. */
  readonly restoreReplacesData: boolean;
  readonly backup: EtcdHostsBackupSettings;
  readonly quotaBackendBytes: number;
  readonly snapshotCount: number;
  readonly repairGeneration: number;
}
