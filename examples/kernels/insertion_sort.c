// Insertion sort: inner while loop with a short-circuit guard on a memory read.
// TOP: isort
// RUN: rand(6,-1000,1000) 16
// RUN: [5 4 3 2 1] 5
#define LEN 16
int isort(int a[LEN], int n) {
    int swaps = 0;
    for (int i = 1; i < n; i++) {
        int key = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
            swaps++;
        }
        a[j + 1] = key;
    }
    return swaps;
}
