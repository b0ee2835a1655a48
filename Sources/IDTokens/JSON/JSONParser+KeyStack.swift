extension JSONParser {
    /// The member names of the objects open during a parse, innermost last, for the duplicate check.
    ///
    /// Starts in a caller-provided buffer (on the stack) and moves to the heap, doubling, only when more
    /// names are open at once than it holds; call `deallocateHeapStorage()` when the parse ends.
    struct KeyStack {
        private var storage: UnsafeMutablePointer<KeyRef>
        private var capacity: Int
        private var isOnHeap = false
        private(set) var count = 0

        init(inline buffer: UnsafeMutableBufferPointer<KeyRef>) {
            storage = buffer.baseAddress!
            capacity = buffer.count
        }

        @inline(__always)
        subscript(index: Int) -> KeyRef {
            storage[index]
        }

        @inline(__always)
        mutating func append(_ key: KeyRef) {
            if count == capacity { grow() }
            (storage + count).initialize(to: key)
            count += 1
        }

        @inline(__always)
        mutating func removeLast(_ removed: Int) {
            count -= removed
        }

        private mutating func grow() {
            let larger = UnsafeMutablePointer<KeyRef>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: storage, count: count)
            if isOnHeap { storage.deallocate() }
            storage = larger
            capacity *= 2
            isOnHeap = true
        }

        func deallocateHeapStorage() {
            if isOnHeap { storage.deallocate() }
        }
    }
}
