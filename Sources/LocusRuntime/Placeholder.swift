import LocusCore
