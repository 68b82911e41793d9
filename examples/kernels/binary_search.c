// Binary search with return from inside the loop.
// TOP: bsearch16
// RUN: [1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31] 21
// RUN: [1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31] 4
// RUN: [1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31] 1
// RUN: [1 3 5 7 9 11 13 15 17 19 21 23 25 27 29 31] 99
int bsearch16(const int a[16], int key) {
    int lo = 0, hi = 15;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] == key)
            return mid;
        else if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}
