import GRDB
import LocusCore

/// Crash-safe state for services that must survive restarts (filled in by the store work).
public enum LocusStoreModule {}
